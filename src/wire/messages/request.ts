import type { BlobUpload } from '../../contract/blob-upload'
import type { ContextEditInput, MessagesMessage, MessagesRequest, ToolChoiceInput, ToolInput } from '../../contract/schemas'
import { type ClientMessage, type Content, contentOf, isMediaPart, type Part } from '../../core'
import type { DoorRequest } from '../../doors'
import type { ContextEdit } from '../../turns/step'
import { type DoorHeaderValues, doorRequestOf, type Translation } from '../door-request'
import { checkMediaCount, MediaIntake } from '../media'
import type { MessagesSessionKey } from './session-key'

/**
 * An Anthropic Messages request as the door layer takes it: the system prompt (its leading
 * `x-anthropic-billing-header:` line aside), each message as neutral messages — text blocks
 * joined with a newline, `tool_use` blocks as calls, each `tool_result` block as a tool message
 * (named by its block), thinking left out of matching — and the client tools as function tools;
 * Anthropic's memory tool (`memory_20250818`) turns on the service's own (`memory: true`).
 *
 * @example
 * const translation = messagesTranslation(body, c.req.header('anthropic-beta'))
 */
/** The request fields the door reads; every other one goes unchanged to an Anthropic upstream only. */
const READ_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stream',
  'stop_sequences',
  'temperature',
  'top_p',
  'tools',
  'tool_choice',
  // Applied by the service (see `contextEditsOf`): never forwarded, so no upstream applies it twice.
  'context_management',
])

export async function messagesTranslation(
  body: MessagesRequest,
  media: MediaIntake,
  beta?: string,
): Promise<Translation & { capsule: DoorRequest['capsule'] }> {
  const messages: ClientMessage[] = []
  const fields: string[] = []
  const { from, capsule } = compactionOf(body.messages)
  for (const [at, message] of body.messages.entries()) {
    if (at < from.message) continue
    // The message holding the compaction block: what follows the block in it.
    const sent = at === from.message ? afterBlock(message, from.block) : withoutCompactions(message)
    if (sent === null) continue
    for (const { message: neutral, field } of await neutralMessages(sent, `messages[${at}]`, media)) {
      messages.push(neutral)
      fields.push(field)
    }
  }
  const system = systemPrompt(body.system)
  const tools = clientTools(body.tools)
  // Anthropic's memory tool is run by the service, against the user's store: never forwarded.
  const memory = (body.tools ?? []).some((tool) => tool.type === MEMORY_TOOL_TYPE)
  const options = Object.fromEntries(
    Object.entries({
      temperature: body.temperature,
      topP: body.top_p,
      maxTokens: body.max_tokens,
      stop: body.stop_sequences?.length ? body.stop_sequences : undefined,
    }).filter(([, value]) => value !== undefined),
  )
  const choice = toolChoice(body.tool_choice)
  const unread = Object.fromEntries(Object.entries(body).filter(([name]) => !READ_FIELDS.has(name)))
  const anthropic = {
    ...(Object.keys(unread).length > 0 ? { fields: unread } : {}),
    ...(beta ? { beta } : {}),
  }
  const contextEdits = body.context_management ? contextEditsOf(body.context_management.edits ?? []) : undefined
  return {
    messages,
    fields,
    capsule,
    toolCallIdField: 'tool_use_id',
    shown: { inline: true, toolIds: 'anthropic' },
    request: {
      ...(system !== undefined ? { system } : {}),
      model: body.model,
      stream: body.stream ?? false,
      replyRoomAtMostHalf: true,
      ...(Object.keys(anthropic).length > 0 ? { anthropic } : {}),
      ...(contextEdits ? { contextEdits } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(memory ? { memory } : {}),
      ...((tools.length > 0 || memory) && choice ? choice : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    },
  }
}

/** Anthropic's defaults: clearing at 100,000 input tokens keeping 3 tool uses, thinking kept for 1 turn, compaction at 150,000. */
const EDIT_DEFAULTS = { clearTrigger: 100_000, keepToolUses: 3, keepThinkingTurns: 1, compactTrigger: 150_000 } as const

/**
 * A request's `context_management.edits` in the turn's words, Anthropic's defaults filled in (see
 * the SDK's `BetaContextManagementConfig`): validated by the contract's schema already.
 *
 * @example
 * contextEditsOf([{ type: 'clear_thinking_20251015' }]) // [{ kind: 'clearThinking', keep: 1 }]
 */
export const contextEditsOf = (edits: readonly ContextEditInput[]): ContextEdit[] => edits.map(contextEditOf)

function contextEditOf(edit: ContextEditInput): ContextEdit {
  if (edit.type === 'clear_tool_uses_20250919')
    return {
      kind: 'clearToolUses',
      trigger:
        edit.trigger?.type === 'tool_uses'
          ? { toolUses: edit.trigger.value }
          : { inputTokens: edit.trigger?.value ?? EDIT_DEFAULTS.clearTrigger },
      keep: edit.keep?.value ?? EDIT_DEFAULTS.keepToolUses,
      clearAtLeast: edit.clear_at_least?.value ?? 0,
      excludeTools: edit.exclude_tools ?? [],
      clearInputs: edit.clear_tool_inputs ?? false,
    }
  if (edit.type === 'clear_thinking_20251015') {
    const keep = edit.keep ?? { type: 'thinking_turns', value: EDIT_DEFAULTS.keepThinkingTurns }
    return { kind: 'clearThinking', keep: keep === 'all' || keep.type === 'all' ? 'all' : keep.value }
  }
  return {
    kind: 'compact',
    trigger: { inputTokens: edit.trigger?.value ?? EDIT_DEFAULTS.compactTrigger },
    ...(edit.instructions?.trim() ? { instructions: edit.instructions } : {}),
    pause: edit.pause_after_compaction ?? false,
  }
}

type Message = MessagesRequest['messages'][number]
type CompactionBlock = Block & { content?: string | null; encrypted_content?: string | null }

/** A compaction block that stands for nothing: a failed compaction's (no summary, no capsule), sent back as Anthropic allows. */
const isEmptyCompaction = (block: CompactionBlock) =>
  block.type === 'compaction' && (block.content ?? null) === null && (block.encrypted_content ?? null) === null

/**
 * Where a request's conversation starts: after its newest compaction block (one the service
 * answered, sent back in an assistant message), which stands for all that came before it — its
 * capsule names the view it was made at (`encrypted_content`; one that is not this session's is a
 * 400 naming it). A block with neither summary nor capsule is left out, standing for nothing.
 */
function compactionOf(messages: readonly Message[]): {
  from: { message: number; block: number }
  capsule: DoorRequest['capsule']
} {
  for (let at = messages.length - 1; at >= 0; at--) {
    const content = messages[at]!.content
    if (typeof content === 'string') continue
    const block = content.findLastIndex((b) => b.type === 'compaction' && !isEmptyCompaction(b))
    if (block < 0) continue
    const token = (content[block] as CompactionBlock).encrypted_content ?? ''
    return { from: { message: at, block }, capsule: { token, field: `messages[${at}].content[${block}].encrypted_content` } }
  }
  return { from: { message: 0, block: -1 }, capsule: null }
}

/** A message without its empty compaction blocks (null when nothing else was in it). */
function withoutCompactions(message: Message): Message | null {
  if (typeof message.content === 'string' || !message.content.some((block) => block.type === 'compaction')) return message
  const content = message.content.filter((block) => block.type !== 'compaction')
  return content.length > 0 ? { ...message, content } : null
}

/** What follows a compaction block in its message (null: nothing). */
function afterBlock(message: Message, block: number): Message | null {
  if (block < 0) return withoutCompactions(message)
  return withoutCompactions({ ...message, content: (message.content as Block[]).slice(block + 1) })
}

/** The billing line Claude Code puts first in its system prompt: not part of the prompt stored or matched. */
const BILLING_LINE = /^x-anthropic-billing-header:[^\n]*(\n|$)/

/** The system prompt: the text, or its text blocks joined with a newline; none when empty. */
export function systemPrompt(system: MessagesRequest['system']): string | undefined {
  if (system === undefined) return undefined
  const text = (typeof system === 'string' ? [system] : system.map((block) => block.text))
    .map((part) => part.replace(BILLING_LINE, ''))
    .filter((part) => part !== '')
    .join('\n')
  return text === '' ? undefined : text
}

type Block = { type: string; [field: string]: unknown }

const textOf = (content: string | Block[]): string =>
  typeof content === 'string'
    ? content
    : content
        .filter((block) => block.type === 'text')
        .map((block) => block.text as string)
        .join('\n')

/** One image or document block as a part (its bytes read by `media`). */
async function mediaPart(field: string, block: Block, media: MediaIntake): Promise<Part> {
  const source = block.source as { type: string; media_type?: string; data?: string; url?: string }
  const type = block.type === 'image' ? 'image' : 'document'
  const extras = typeof block.title === 'string' && block.title !== '' ? { title: block.title } : {}
  if (source.type === 'url') return media.url(`${field}.source.url`, type, source.url!, extras)
  if (source.type === 'text')
    return media.bytes(`${field}.source.data`, 'document', 'text/plain', new TextEncoder().encode(source.data!), extras)
  return media.base64(`${field}.source.data`, type, source.media_type!, source.data!, extras)
}

/** Blocks' text, images and documents as content (text alone a string; other blocks left out). */
async function blocksContent(field: string, content: string | Block[], media: MediaIntake): Promise<Content> {
  if (typeof content === 'string') return content
  const parts: Part[] = []
  for (const [j, block] of content.entries()) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text as string })
    else if (block.type === 'image' || block.type === 'document') parts.push(await mediaPart(`${field}[${j}]`, block, media))
  }
  checkMediaCount(field, parts.filter(isMediaPart).length)
  return contentOf(parts)
}

/**
 * One request message as neutral messages, each with the field it came from: an inline system
 * message as itself; a user message's tool results first (one tool message each, its images and
 * documents with it), then its text, images and documents; an assistant message's text and calls
 * as one (nothing when it holds neither: thinking alone is not matched).
 */
async function neutralMessages(
  message: MessagesMessage,
  field: string,
  media: MediaIntake,
): Promise<{ message: ClientMessage; field: string }[]> {
  const blocks: Block[] = typeof message.content === 'string' ? [] : message.content
  if (message.role === 'system') return [{ message: { role: 'system', content: textOf(message.content) }, field }]
  if (message.role === 'assistant') {
    const toolCalls = blocks
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({ id: block.id as string, name: block.name as string, arguments: JSON.stringify(block.input) }))
    const text = textOf(message.content)
    if (text === '' && toolCalls.length === 0) return []
    // Its calls with no text block: content null, as the service stores such a reply of Anthropic's.
    const content = toolCalls.length > 0 && !blocks.some((block) => block.type === 'text') ? null : text
    // Thinking is kept with the message (as Anthropic's reasoning), never matched.
    const reasoning = blocks
      .filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking')
      .map(({ cache_control: _, ...block }) => ({ provider: 'anthropic', ...block }))
    return [
      {
        message: {
          role: 'assistant',
          content,
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(reasoning.length > 0 ? { reasoning } : {}),
        },
        field,
      },
    ]
  }
  const results: { message: ClientMessage; field: string }[] = []
  for (const [j, block] of blocks.entries()) {
    if (block.type !== 'tool_result') continue
    const where = `${field}.content[${j}]`
    const content =
      block.content === undefined ? '' : await blocksContent(`${where}.content`, block.content as string | Block[], media)
    const error = block.is_error === true ? { isError: true } : {}
    results.push({ message: { role: 'tool', content, toolCallId: block.tool_use_id as string, ...error }, field: where })
  }
  const said = blocks.filter((block) => block.type !== 'tool_result')
  const content = typeof message.content === 'string' ? message.content : await blocksContent(`${field}.content`, said, media)
  const hasText = typeof message.content === 'string' || said.some((block) => ['text', 'image', 'document'].includes(block.type))
  return hasText || results.length === 0 ? [...results, { message: { role: 'user', content }, field }] : results
}

/** Anthropic's memory tool: its commands are run by the service (see `src/memory`), offered to the model as `memory`. */
export const MEMORY_TOOL_TYPE = 'memory_20250818'

/** The client tools as function tools (server tools, which only Anthropic runs, and the memory tool, which the service runs, are left out). */
function clientTools(tools: MessagesRequest['tools']): ToolInput[] {
  return (tools ?? [])
    .filter((tool) => tool.type === undefined || tool.type === 'custom')
    .map((tool) => ({
      type: 'function' as const,
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    }))
}

/** `tool_choice` in the turn's names: `any` is `required`; `disable_parallel_tool_use` is `parallelToolCalls: false`. */
function toolChoice(
  choice: MessagesRequest['tool_choice'],
): { toolChoice?: ToolChoiceInput; parallelToolCalls?: boolean } | null {
  if (!choice) return null
  const parallel = choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {}
  switch (choice.type) {
    case 'auto':
      return { toolChoice: 'auto', ...parallel }
    case 'any':
      return { toolChoice: 'required', ...parallel }
    case 'none':
      return { toolChoice: 'none' }
    case 'tool':
      return { toolChoice: { type: 'function', function: { name: choice.name! } }, ...parallel }
  }
}

/** Request classes Claude Code marks as not part of the conversation: answered without the session. */
const PASSTHROUGH_CLASSES = new Set(['auxiliary', 'compaction'])

/**
 * A Messages request as its session object takes it (see `doorRequestOf`): side conversations
 * answered unstored, Claude Code's auxiliary and compaction requests (`x-claude-code-request-class`)
 * passed through, a subagent's session created naming its parent.
 *
 * @example
 * const request = await messagesRequest(body, headers, c.env, key, c.req.header('anthropic-beta'))
 */
export async function messagesRequest(
  body: MessagesRequest,
  headers: DoorHeaderValues & { 'x-claude-code-request-class'?: string | undefined },
  env: Pick<Env, 'ON_DIVERGE'>,
  key: MessagesSessionKey,
  beta?: string,
): Promise<{ request: DoorRequest; upload: BlobUpload | null }> {
  const media = new MediaIntake()
  const { capsule, ...translation } = await messagesTranslation(body, media, beta)
  const request = await doorRequestOf(translation, body.messages, headers, env, {
    mode: PASSTHROUGH_CLASSES.has(headers['x-claude-code-request-class'] ?? '') ? 'passthrough' : 'turn',
    creates: key.parentSessionId ? { metadata: { parentSessionId: key.parentSessionId } } : {},
    sideConversations: true,
    capsule,
  })
  return { request, upload: media.upload() }
}
