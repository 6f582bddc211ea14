import type { BlobUpload } from '../../contract/blob-upload'
import { ServiceError } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import type { ResponsesRequest, ToolChoiceInput, ToolInput } from '../../contract/schemas'
import {
  type ClientMessage,
  type Content,
  contentOf,
  type ImageDetail,
  isMediaPart,
  type MessageEvent,
  type Part,
  type Reasoning,
} from '../../core'
import type { DoorRequest } from '../../doors'
import { blobUrl } from '../blob-url'
import { type DoorHeaderValues, doorRequestOf, type Translation } from '../door-request'
import { type BlobsElsewhere, checkMediaCount, MediaIntake } from '../media'
import { referencedItems } from './items'
import { implicitTtlOf, type ResponsesPlace, type ResponsesSessionHeaders, responsesPlace } from './session'

/**
 * An OpenAI Responses request as the door layer takes it: `instructions` and every system or
 * developer message, joined with a blank line, as the system prompt; the other input items as
 * neutral messages — an assistant message item and the `function_call` items after it as one
 * assistant message, each `function_call_output` as a tool message, reasoning items left out of
 * matching — and its function tools, those inside namespaces under flat names (`namespaced`;
 * the others, which the service cannot offer, left out and named in `omitted`).
 *
 * @example
 * const { translation, capsule, omitted } = responsesTranslation(body)
 */
export async function responsesTranslation(
  body: ResponsesRequest,
  media: MediaIntake,
  references: ReadonlyMap<string, Record<string, unknown>> = new Map(),
): Promise<{
  translation: Translation
  capsule: DoorRequest['capsule']
  omitted: string[]
  namespaced: Map<string, NamespacedName>
  compact: boolean
}> {
  const all = inputItems(body, references)
  // A last compaction_trigger asks for a compaction; the newest compaction item stands for all before it.
  const compact = all.at(-1)?.type === 'compaction_trigger'
  const items = compact ? all.slice(0, -1) : all
  const at = items.findLastIndex((item) => item.type === 'compaction')
  const { messages, fields, system } = await messagesOf(
    items.slice(at + 1),
    { field: 'input', from: at + 1, systemMessages: 'prompt' },
    media,
  )
  // System and developer messages before it still make the system prompt (Codex moves one there).
  const earlier = (await messagesOf(items.slice(0, at + 1), { field: 'input', systemMessages: 'prompt' }, media)).system
  system.unshift(...(body.instructions ? [body.instructions] : []), ...earlier)
  const threshold = body.context_management?.find((entry) => entry.type === 'compaction')?.compact_threshold
  const { tools, omitted, namespaced } = toolsOf(body.tools)
  const toolChoice = toolChoiceOf(body.tool_choice, tools, omitted)
  const options = Object.fromEntries(
    Object.entries({
      temperature: body.temperature,
      topP: body.top_p,
      maxTokens: body.max_output_tokens,
      promptCacheKey: body.prompt_cache_key,
    }).filter(([, value]) => value !== undefined && value !== null),
  )
  return {
    omitted,
    namespaced,
    compact,
    capsule: at >= 0 ? { token: items[at]!.encrypted_content as string, field: `input[${at}].encrypted_content` } : null,
    translation: {
      messages,
      fields,
      toolCallIdField: 'call_id',
      shown: { inline: false },
      request: {
        ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
        model: body.model,
        stream: body.stream ?? false,
        ...(tools.length > 0 ? { tools } : {}),
        ...(toolChoice !== undefined && tools.length > 0 ? { toolChoice } : {}),
        ...(typeof body.parallel_tool_calls === 'boolean' && tools.length > 0
          ? { parallelToolCalls: body.parallel_tool_calls }
          : {}),
        ...(Object.keys(options).length > 0 ? { options } : {}),
        // A compaction threshold is a tokenCount trigger for this request.
        ...(threshold ? { compactionTrigger: { tokenCount: threshold } } : {}),
      },
    },
  }
}

export type Item = Exclude<ResponsesRequest['input'], string>[number] & Record<string, unknown>

/** The ids of the items a request refers to (`item_reference`), to be looked up before it is read. */
export const referencedIds = (body: ResponsesRequest): string[] =>
  typeof body.input === 'string' ? [] : body.input.flatMap((item) => (item.type === 'item_reference' ? [item.id as string] : []))

/** The request's items, each reference replaced by the item it names (one that names none: 400, as OpenAI answers). */
function inputItems(body: ResponsesRequest, references: ReadonlyMap<string, Record<string, unknown>>): Item[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }]
  return body.input.map((item, at) => {
    if (item.type !== 'item_reference') return item
    const found = references.get(item.id as string)
    if (!found) throw new ServiceError('invalid_request', `input[${at}].id: Item with id '${item.id}' not found.`)
    return found as Item
  })
}

/**
 * Input items as neutral messages: an assistant message item and the `function_call` items after
 * it as one assistant message, each `function_call_output` a tool message, reasoning items kept on
 * the assistant message they come with; system and developer messages taken out as the system
 * prompt's parts, or kept in place as inline system messages (a Conversations client's items).
 */
export async function messagesOf(
  items: readonly Item[],
  options: { field: string; from?: number; systemMessages: 'prompt' | 'inline' },
  media: MediaIntake,
): Promise<{ messages: ClientMessage[]; fields: string[]; system: string[] }> {
  const messages: ClientMessage[] = []
  const fields: string[] = []
  const system: string[] = []
  // Whether a function_call joins the message before it: an assistant's (a message, or calls).
  let joinable = false
  // Reasoning items go with the assistant message they come with (kept, never matched).
  let reasoning: Reasoning[] = []
  const assistant = (message: ClientMessage, field: string) => {
    if (reasoning.length > 0) message.reasoning = reasoning
    reasoning = []
    messages.push(message)
    fields.push(field)
  }
  for (const [at, item] of items.entries()) {
    const field = `${options.field}[${(options.from ?? 0) + at}]`
    const type = item.type ?? 'message'
    if (type === 'compaction') continue
    if (type === 'reasoning') {
      const { id: _, ...kept } = item
      reasoning.push({ ...kept, provider: 'openai', type: 'reasoning' })
      continue
    }
    if (type === 'function_call') {
      // A call inside a namespace goes by its flat name, as the tool was offered and its call stored.
      const name =
        typeof item.namespace === 'string' && item.namespace !== ''
          ? flatName({ namespace: item.namespace, name: item.name as string })
          : (item.name as string)
      const call = { id: item.call_id as string, name, arguments: item.arguments as string }
      const previous = messages.at(-1)
      if (joinable && previous?.role === 'assistant') {
        previous.toolCalls = [...(previous.toolCalls ?? []), call]
        if (reasoning.length > 0) previous.reasoning = [...(previous.reasoning ?? []), ...reasoning]
        reasoning = []
      } else assistant({ role: 'assistant', content: null, toolCalls: [call] }, field)
      joinable = true
      continue
    }
    joinable = false
    if (type === 'function_call_output') {
      const output = await itemContent(`${field}.output`, item.output, media)
      messages.push({ role: 'tool', content: output, toolCallId: item.call_id as string })
      fields.push(field)
      continue
    }
    const text = textOf(item.content)
    if (item.role === 'system' || item.role === 'developer') {
      if (options.systemMessages === 'inline') {
        messages.push({ role: 'system', content: text })
        fields.push(field)
      } else if (text !== '') system.push(text)
      continue
    }
    if (item.role === 'assistant') assistant({ role: 'assistant', content: text }, field)
    else {
      messages.push({ role: 'user', content: await itemContent(`${field}.content`, item.content, media) })
      fields.push(field)
    }
    joinable = item.role === 'assistant'
  }
  return { messages, fields, system }
}

/** A content's text: the string, or its text parts joined with a newline. */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('\n')
      : ''

type ItemPart = { type: string; text?: string; image_url?: string; detail?: ImageDetail } & Record<string, unknown>

/**
 * An item's content (a message's, a `function_call_output`'s): text, or parts — `input_text`,
 * `input_image` (`image_url`: a data URL, or https) and `input_file` (`file_data` as a data URL,
 * or `file_url`); a file by id (`file_id`) is refused as `unsupported`.
 */
async function itemContent(field: string, content: unknown, media: MediaIntake): Promise<Content> {
  if (!Array.isArray(content)) return textOf(content)
  const parts: Part[] = []
  for (const [j, part] of (content as ItemPart[]).entries()) {
    const where = `${field}[${j}]`
    if (part.type === 'input_image' || part.type === 'input_file') {
      if (part.type === 'input_image') {
        const detail = part.detail ? { detail: part.detail } : {}
        parts.push(await media.url(`${where}.image_url`, 'image', String(part.image_url ?? ''), detail))
      } else if (typeof part.file_data === 'string') {
        parts.push(await media.file(`${where}.file_data`, part.file_data, part.filename as string | undefined))
      } else {
        const title = typeof part.filename === 'string' ? { title: part.filename } : {}
        parts.push(await media.url(`${where}.file_url`, 'document', String(part.file_url ?? ''), title))
      }
    } else parts.push({ type: 'text', text: part.text ?? '' })
  }
  checkMediaCount(field, parts.filter(isMediaPart).length)
  return contentOf(parts)
}

/** A tool inside a `namespace` tool, as the client names it. */
export interface NamespacedName {
  namespace: string
  name: string
}

/**
 * The one name a namespaced tool goes by upstream and in the log: Codex's own flattening
 * (`ToolName::canonical_flat_name` in codex-rs), `<namespace>__<name>`, the underscores at the
 * join trimmed — `mcp__ds` and `list_sessions` are `mcp__ds__list_sessions`, as Claude Code
 * names MCP tools too.
 */
export const flatName = ({ namespace, name }: NamespacedName) => `${namespace.replace(/_+$/, '')}__${name.replace(/^_+/, '')}`

/** The turn's tools: those it offers, those it leaves out (named), and the flattened names of namespaced ones. */
interface TurnTools {
  tools: ToolInput[]
  omitted: string[]
  /** Each offered namespaced tool by its flat name (see `flatName`), to answer its calls as the client names them. */
  namespaced: Map<string, NamespacedName>
}

/**
 * Function tools as the turn offers them, and the function tools inside a `namespace` tool (Codex
 * offers an MCP server's tools as one, `mcp__<server>`) each under its flat name — upstreams
 * take no namespaces. Every other tool (built-in, custom, MCP), and a flat name another tool
 * already has, is left out and named. Namespaces count toward the tool limit by what they hold.
 */
function toolsOf(tools: ResponsesRequest['tools']): TurnTools {
  const offered: ToolInput[] = []
  const omitted: string[] = []
  const namespaced = new Map<string, NamespacedName>()
  const offer = (tool: Record<string, unknown>, name: string) =>
    offered.push({
      type: 'function',
      function: {
        name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        ...(tool.parameters && typeof tool.parameters === 'object'
          ? { parameters: tool.parameters as Record<string, unknown> }
          : {}),
      },
    })
  // Plain function tools first: a namespaced tool never takes a name the client gave another.
  const plain = new Set(
    (tools ?? []).flatMap((tool) => (tool.type === 'function' && typeof tool.name === 'string' ? [tool.name] : [])),
  )
  for (const tool of tools ?? []) {
    const named = tool as Record<string, unknown>
    if (tool.type === 'function' && typeof tool.name === 'string') offer(named, tool.name)
    else if (tool.type === 'namespace' && typeof tool.name === 'string' && Array.isArray(named.tools)) {
      for (const inner of named.tools as Record<string, unknown>[]) {
        const name = { namespace: tool.name, name: String(inner?.name ?? inner?.type) }
        const flat = flatName(name)
        if (inner?.type !== 'function' || typeof inner.name !== 'string' || plain.has(flat) || namespaced.has(flat))
          omitted.push(flat)
        else {
          namespaced.set(flat, name)
          offer(inner, flat)
        }
      }
    } else omitted.push(typeof named.server_label === 'string' ? named.server_label : (tool.name ?? tool.type))
  }
  // Offered or left out, each is in the prompt or the X-Tools-Omitted header.
  const count = offered.length + omitted.length
  if (count > SIZE_LIMITS.toolItems)
    throw new ServiceError(
      'invalid_request',
      `tools: ${count} tools, counting those inside namespaces; at most ${SIZE_LIMITS.toolItems}`,
    )
  return { tools: offered, omitted, namespaced }
}

/** `tool_choice` in the turn's names; one that requires a tool left out is refused. */
function toolChoiceOf(
  choice: ResponsesRequest['tool_choice'],
  tools: readonly ToolInput[],
  omitted: readonly string[],
): ToolChoiceInput | undefined {
  if (choice === undefined || choice === 'auto' || choice === 'none') return choice
  if (choice === 'required') {
    if (tools.length === 0 && omitted.length > 0)
      throw new ServiceError(
        'unsupported',
        `tool_choice: it requires a tool, and only tools the service cannot offer were sent (${omitted.join(', ')})`,
      )
    return 'required'
  }
  if (choice.type === 'function' && choice.name && tools.some((tool) => tool.function.name === choice.name))
    return { type: 'function', function: { name: choice.name } }
  throw new ServiceError(
    'unsupported',
    `tool_choice: it requires "${choice.name ?? choice.type}", which the service cannot offer`,
  )
}

/** A Responses request as its session object takes it, with where it is answered and what the answer says of it. */
export interface ResponsesDoorRequest {
  place: ResponsesPlace
  request: DoorRequest
  /** Its images and documents, for the session object. */
  upload: BlobUpload | null
  /** Tools the service cannot offer, left out (`X-Tools-Omitted`). */
  omitted: string[]
  /** The namespaced tools offered, by their flat names: their calls are answered in their namespace. */
  namespaced: Map<string, NamespacedName>
  /** The input ends with a `compaction_trigger`: the request asks for a compaction. */
  compact: boolean
}

/**
 * A Responses request as its session object takes it (see `doorRequestOf`): where it is answered
 * (see `responsesPlace`; with no session, unstored: passed through), its items (those it refers to
 * by `item_reference` looked up in its session with `lookUp`: a second call to the session object,
 * only for such a request), a compaction item's capsule, the response it goes on
 * from. A capsule with no session named is a 400: it goes back to the session it was made in.
 * An image or document named by another session's blob URL is read from there
 * (`blobsElsewhere`, given the request's session: a call to that session's object per blob).
 *
 * @example
 * const { place, request, omitted } = await responsesRequest(body, headers, c.env, newConversationId)
 */
export async function responsesRequest(
  body: ResponsesRequest,
  headers: DoorHeaderValues & ResponsesSessionHeaders & { 'x-memory'?: 'on' | 'off' | undefined },
  env: Pick<Env, 'ON_DIVERGE' | 'RESPONSES_IMPLICIT_TTL_SECONDS'>,
  newId: () => string,
  origin: string,
  lookUp?: (sessionId: string, eventIds: string[]) => Promise<MessageEvent[]>,
  blobsElsewhere?: (sessionId: string | null) => BlobsElsewhere,
): Promise<ResponsesDoorRequest> {
  const place = responsesPlace(body, headers, newId)
  const referenced = referencedIds(body)
  const stored = place.sessionId !== null && !place.implicit
  const found =
    referenced.length > 0 && stored && lookUp
      ? await referencedItems(referenced, (ids) => lookUp(place.sessionId!, ids), blobUrl(origin, place.sessionId!))
      : undefined
  const media = new MediaIntake(origin, blobsElsewhere?.(place.sessionId) ?? null)
  const { translation, capsule, omitted, namespaced, compact } = await responsesTranslation(body, media, found)
  if (headers['x-memory'] === 'on') translation.request.memory = true
  if (place.sessionId === null && capsule)
    throw new ServiceError(
      'invalid_request',
      `${capsule.field}: a compaction item goes back to the session it was made in: name it`,
    )
  const request = await doorRequestOf(translation, body.input, headers, env, {
    mode: place.sessionId === null ? 'passthrough' : 'turn',
    mustExist: place.mustExist,
    creates: place.implicit ? { idleTtlSeconds: implicitTtlOf(env.RESPONSES_IMPLICIT_TTL_SECONDS) } : {},
    after: place.after ?? null,
    capsule,
  })
  return { place, request, omitted, namespaced, compact, upload: media.upload() }
}
