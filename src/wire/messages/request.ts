import type { BlobUpload } from '../../contract/blob-upload'
import type { MessagesMessage, MessagesRequest, ToolChoiceInput, ToolInput } from '../../contract/schemas'
import { type ClientMessage, type Content, contentOf, isMediaPart, type Part } from '../../core'
import type { DoorRequest } from '../../doors'
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
])

export async function messagesTranslation(body: MessagesRequest, media: MediaIntake, beta?: string): Promise<Translation> {
  const messages: ClientMessage[] = []
  const fields: string[] = []
  for (const [at, message] of body.messages.entries()) {
    for (const { message: neutral, field } of await neutralMessages(message, `messages[${at}]`, media)) {
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
  return {
    messages,
    fields,
    toolCallIdField: 'tool_use_id',
    shown: { inline: true, toolIds: 'anthropic' },
    request: {
      ...(system !== undefined ? { system } : {}),
      model: body.model,
      stream: body.stream ?? false,
      replyRoomAtMostHalf: true,
      ...(Object.keys(anthropic).length > 0 ? { anthropic } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(memory ? { memory } : {}),
      ...((tools.length > 0 || memory) && choice ? choice : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    },
  }
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
  const translation = await messagesTranslation(body, media, beta)
  const request = await doorRequestOf(translation, body.messages, headers, env, {
    mode: PASSTHROUGH_CLASSES.has(headers['x-claude-code-request-class'] ?? '') ? 'passthrough' : 'turn',
    creates: key.parentSessionId ? { metadata: { parentSessionId: key.parentSessionId } } : {},
    sideConversations: true,
  })
  return { request, upload: media.upload() }
}
