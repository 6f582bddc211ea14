import { ServiceError } from '../../contract/errors'
import type { ItemsQuery } from '../../contract/schemas'
import { type Content, type Message, type MessageEvent, partsOf, type Reasoning, type ToolCall, textOf } from '../../core'

/**
 * Stored events as the Responses API's items, each with an id that names the event it comes
 * from: `msg_<event>` a message, `fc_<event>.<k>` its k-th call, `fco_<event>.<k>` a tool
 * event's k-th result, `rs_<event>.<k>` its k-th reasoning item. One event, the same ids every
 * time it is shown (a retried answer, a listed conversation, an `item_reference`).
 */

/** An item as the Responses API shows it. */
export type ResponseItem = Record<string, unknown> & { id: string; type: string }

/** Whose items an id names: the event, and which of its items. */
export interface ItemTarget {
  eventId: string
  kind: 'message' | 'call' | 'output' | 'reasoning'
  index: number
}

const PREFIXES = { message: 'msg_', call: 'fc_', output: 'fco_', reasoning: 'rs_' } as const

/** The id of an event's item. */
export const itemId = (eventId: string, kind: ItemTarget['kind'], index = 0) =>
  kind === 'message' ? `${PREFIXES.message}${eventId}` : `${PREFIXES[kind]}${eventId}.${index}`

/** The event and item an id names, or null when it is none of ours. */
export function itemTarget(id: string): ItemTarget | null {
  if (id.startsWith(PREFIXES.message) && id.length > PREFIXES.message.length)
    return { eventId: id.slice(PREFIXES.message.length), kind: 'message', index: 0 }
  for (const kind of ['call', 'output', 'reasoning'] as const) {
    if (!id.startsWith(PREFIXES[kind])) continue
    const dot = id.lastIndexOf('.')
    if (dot <= PREFIXES[kind].length || !/^\d{1,4}$/.test(id.slice(dot + 1))) return null
    return { eventId: id.slice(PREFIXES[kind].length, dot), kind, index: Number(id.slice(dot + 1)) }
  }
  return null
}

export const outputText = (text: string) => ({ type: 'output_text' as const, text, annotations: [], logprobs: [] })

/** An assistant's message item (in progress: no content yet). */
export const messageItem = (eventId: string, text: string, status: 'in_progress' | 'completed') => ({
  id: itemId(eventId, 'message'),
  type: 'message' as const,
  status,
  role: 'assistant' as const,
  content: status === 'completed' ? [outputText(text)] : [],
})

/** The k-th call of an assistant's event (in progress: no arguments yet). */
export const callItem = (eventId: string, index: number, call: ToolCall, status: 'in_progress' | 'completed') => ({
  id: itemId(eventId, 'call', index),
  type: 'function_call' as const,
  status,
  call_id: call.id,
  name: call.name,
  arguments: status === 'completed' ? call.arguments : '',
})

/** Where a stored image's or document's bytes are read: the session's blob route (`blobUrl`). */
export type BlobUrl = (ref: string) => string

/**
 * A content as an item's parts: text as `input_text`, an image as `input_image` and a document as
 * `input_file`, each by its URL — a stored one's the session's blob route, which a client sends
 * back as it is (see `MediaIntake`'s origin).
 */
function itemParts(content: Content, blobUrl: BlobUrl): Record<string, unknown>[] {
  return partsOf(content).map((part) => {
    if (part.type === 'text') return { type: 'input_text', text: part.text }
    const url = 'url' in part ? part.url : blobUrl(part.blob)
    if (part.type === 'image') return { type: 'input_image', image_url: url, detail: part.detail ?? 'auto' }
    return { type: 'input_file', file_url: url, ...(part.title ? { filename: part.title } : {}) }
  })
}

/** A stored event's items, in order (an event with nothing to show has none); its images and documents by `blobUrl`. */
export function itemsOf(event: { id: string; message: Message }, blobUrl: BlobUrl): ResponseItem[] {
  const { id, message } = event
  const text = textOf(message.content)
  switch (message.role) {
    case 'assistant':
      return [
        ...(message.reasoning ?? []).flatMap((reasoning, k) => reasoningItem(id, k, reasoning)),
        ...(text !== '' ? [messageItem(id, text, 'completed')] : []),
        ...(message.toolCalls ?? []).map((call, k) => callItem(id, k, call, 'completed')),
      ]
    case 'tool':
      return (message.toolResponses ?? []).map((response, k) => ({
        id: itemId(id, 'output', k),
        type: 'function_call_output' as const,
        status: 'completed' as const,
        call_id: response.id,
        output: typeof response.data === 'string' ? response.data : itemParts(response.data, blobUrl),
      }))
    default:
      return [
        {
          id: itemId(id, 'message'),
          type: 'message' as const,
          status: 'completed' as const,
          role: message.role,
          content:
            message.content !== null && typeof message.content !== 'string'
              ? itemParts(message.content, blobUrl)
              : [{ type: 'input_text' as const, text }],
        },
      ]
  }
}

/** Reasoning an OpenAI upstream or client gave, shown as it was given; another provider's is not shown. */
const reasoningItem = (eventId: string, index: number, reasoning: Reasoning) => {
  if (reasoning.provider !== 'openai') return []
  const { provider: _, ...item } = reasoning
  return [{ ...item, id: itemId(eventId, 'reasoning', index), type: 'reasoning' }]
}

/** A page of items in OpenAI's list shape: `order` of them, those after the item `after`, at most `limit`. */
export function itemList(items: readonly ResponseItem[], query: ItemsQuery) {
  const ordered = query.order === 'asc' ? items : [...items].reverse()
  const start = query.after === undefined ? 0 : ordered.findIndex((item) => item.id === query.after) + 1
  if (start === 0 && query.after !== undefined)
    throw new ServiceError('invalid_request', `after: no item "${query.after}" in this list`)
  const data = ordered.slice(start, start + query.limit)
  return {
    object: 'list' as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: start + query.limit < ordered.length,
  }
}

/**
 * The items a request refers to (`item_reference`), by id: the events they name looked up
 * (`lookUp`, in the request's session), each shown as its items.
 */
export async function referencedItems(
  ids: readonly string[],
  lookUp: (eventIds: string[]) => Promise<MessageEvent[]>,
  blobUrl: BlobUrl,
): Promise<Map<string, Record<string, unknown>>> {
  const events = [...new Set(ids.flatMap((id) => itemTarget(id)?.eventId ?? []))]
  if (events.length === 0) return new Map()
  return new Map((await lookUp(events)).flatMap((event) => itemsOf(event, blobUrl)).map((item) => [item.id as string, item]))
}
