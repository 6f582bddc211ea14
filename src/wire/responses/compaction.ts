import type { ResponseCompaction, ResponseObject } from '../../contract/schemas'
import type { DoorCompaction } from '../../doors/compaction'
import type { SseEvent } from '../door-events'
import { type ResponseContext, responseId } from './answer'
import { type BlobUrl, itemsOf } from './items'

/**
 * A compaction's answers on the Responses wire: always exactly one `compaction` item, whose
 * `encrypted_content` is the capsule (Codex counts only the items of `response.output_item.done`
 * events, and needs exactly one).
 */

const compactionItem = (done: DoorCompaction) => ({
  type: 'compaction' as const,
  id: `cmp_${done.eventId || 'start'}`,
  encrypted_content: done.capsule,
})

/** A compaction's response id: it names the view's last event, which a later `previous_response_id` goes on from. */
const compactionResponseId = (done: DoorCompaction, conversation: string | null) =>
  responseId(done.tipId || 'start', conversation)

/** Compaction reports no model usage of the client's request (the summary's is the service's). */
const NO_USAGE = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
}

/** The response to a request ending with a `compaction_trigger`: output, the one compaction item. */
export function compactionResponse(done: DoorCompaction, context: ResponseContext): ResponseObject {
  return {
    id: compactionResponseId(done, context.conversation),
    object: 'response' as const,
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed' as const,
    model: context.model,
    error: null,
    incomplete_details: null,
    instructions: null,
    output: [compactionItem(done)],
    usage: NO_USAGE,
    conversation: context.conversation === null ? null : { id: context.conversation },
    previous_response_id: null,
    store: context.store,
  }
}

/** The same response as server-sent events, numbered: created, in progress, the item added and done, completed. */
export function compactionEvents(done: DoorCompaction, context: ResponseContext): SseEvent[] {
  const response = compactionResponse(done, context)
  const pending = { ...response, status: 'in_progress', output: [], usage: null }
  const item = compactionItem(done)
  return [
    ['response.created', { response: pending }],
    ['response.in_progress', { response: pending }],
    ['response.output_item.added', { output_index: 0, item }],
    ['response.output_item.done', { output_index: 0, item }],
    ['response.completed', { response }],
  ].map(([type, fields], sequence) => ({
    event: type as string,
    data: { type, ...(fields as Record<string, unknown>), sequence_number: sequence },
  }))
}

/** `POST /v1/responses/compact`'s answer: the view's user messages as items, then the compaction item. */
export const compactedWindow = (done: DoorCompaction, conversation: string, blobUrl: BlobUrl): ResponseCompaction => ({
  id: compactionResponseId(done, conversation),
  object: 'response.compaction' as const,
  created_at: Math.floor(Date.now() / 1000),
  output: [...done.userMessages.flatMap((event) => itemsOf(event, blobUrl)), compactionItem(done)],
  usage: NO_USAGE,
})
