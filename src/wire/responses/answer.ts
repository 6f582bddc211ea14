import { fromBase64url, toBase64url } from '../../contract/base64url'
import type { Usage } from '../../contract/turn-result'
import type { ToolCall } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'
import { callItem, itemId, messageItem, outputText } from './items'

/**
 * The Responses door's answers on the OpenAI Responses wire: a `response` object, or the events
 * of a stream (`response.created`, `response.in_progress`, each output item added, its content
 * or arguments in deltas, done, then `response.completed`), each with its `sequence_number`.
 * Ids follow the stored reply, so a retry answers the same response id and item ids.
 */

/** Where an answer stands: what the request named. */
export interface ResponseContext {
  /** The model asked for (the one answering when the upstream said). */
  model: string
  /** The session the answer is stored in; null when it is not stored. */
  conversation: string | null
  store: boolean
  /** The response the request went on from, when it named one. */
  previousResponseId?: string
}

/**
 * A response's id: it names the session it is stored in and its reply, so that a later request's
 * `previous_response_id` finds both (`resp_<session, base64url>.<reply id>`); an unstored one
 * names its reply only.
 */
export const responseId = (replyId: string, sessionId: string | null) =>
  sessionId === null ? `resp_${replyId}` : `resp_${base64url(sessionId)}.${replyId}`

/** The session and reply a response id names, or null when it names none. */
export function responseTarget(id: string): { sessionId: string; replyId: string } | null {
  const match = /^resp_([A-Za-z0-9_-]+)\.(.+)$/.exec(id)
  if (!match) return null
  try {
    return {
      sessionId: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64url(match[1]!)),
      replyId: match[2]!,
    }
  } catch {
    return null
  }
}

const base64url = (text: string) => toBase64url(new TextEncoder().encode(text))

/** Usage in the Responses API's names (`input_tokens` counts the cached ones too). */
export const responseUsage = (usage: Usage | null) =>
  usage && {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.totalTokens,
  }

/** The answer's output items: its text as a message, then the calls the client is to run. */
function outputOf(answer: DoorAnswer) {
  const text = answer.reply.message.content ?? ''
  return [
    ...(text !== '' ? [messageItem(answer.reply.id, text, 'completed')] : []),
    ...requestedCalls(answer).map((call, k) => callItem(answer.reply.id, k, call, 'completed')),
  ]
}

/** The response's envelope: everything but its output, status and usage. */
const envelope = (id: string, createdAt: number, context: ResponseContext) => ({
  id: responseId(id, context.conversation),
  object: 'response' as const,
  created_at: createdAt,
  model: context.model,
  error: null,
  incomplete_details: null as { reason: string } | null,
  instructions: null,
  conversation: context.conversation === null ? null : { id: context.conversation },
  previous_response_id: context.previousResponseId ?? null,
  store: context.store,
})

/** A whole `response` (its id, item ids and time are the stored reply's, the same for a retry). */
export function responseObject(answer: DoorAnswer, context: ResponseContext) {
  const incomplete = answer.finishReason === 'length'
  return {
    ...envelope(answer.reply.id, Math.floor(Date.parse(answer.reply.timestamp) / 1000), context),
    model: answeringModel(answer, context.model),
    status: incomplete ? ('incomplete' as const) : ('completed' as const),
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output: outputOf(answer),
    usage: responseUsage(answer.usage),
  }
}

/** One server-sent event: its name is its type. */
export interface ResponseEvent {
  event: string
  data: Record<string, unknown>
}

/** The events of one streamed response, numbered in order. */
export function responseStream(replyId: string, context: ResponseContext) {
  let sequence = 0
  let outputs = 0
  let calls = 0
  let text: { index: number; content: string } | null = null
  const event = (type: string, fields: Record<string, unknown>): ResponseEvent => ({
    event: type,
    data: { type, ...fields, sequence_number: sequence++ },
  })
  const messageId = itemId(replyId, 'message')
  const closeText = (): ResponseEvent[] => {
    if (!text) return []
    const { index, content } = text
    text = null
    const at = { item_id: messageId, output_index: index, content_index: 0 }
    return [
      event('response.output_text.done', { ...at, text: content, logprobs: [] }),
      event('response.content_part.done', { ...at, part: outputText(content) }),
      event('response.output_item.done', { output_index: index, item: messageItem(replyId, content, 'completed') }),
    ]
  }
  const pending = { ...envelope(replyId, Math.floor(Date.now() / 1000), context), status: 'in_progress', output: [], usage: null }
  return {
    start: (): ResponseEvent[] => [
      event('response.created', { response: pending }),
      event('response.in_progress', { response: pending }),
    ],
    text(delta: string): ResponseEvent[] {
      const opening: ResponseEvent[] = []
      if (!text) {
        text = { index: outputs++, content: '' }
        opening.push(
          event('response.output_item.added', { output_index: text.index, item: messageItem(replyId, '', 'in_progress') }),
          event('response.content_part.added', {
            item_id: messageId,
            output_index: text.index,
            content_index: 0,
            part: outputText(''),
          }),
        )
      }
      text.content += delta
      const at = { item_id: messageId, output_index: text.index, content_index: 0 }
      return [...opening, event('response.output_text.delta', { ...at, delta, logprobs: [] })]
    },
    toolCall(call: ToolCall): ResponseEvent[] {
      const closing = closeText()
      const index = outputs++
      const k = calls++
      const at = { item_id: itemId(replyId, 'call', k), output_index: index }
      return [
        ...closing,
        event('response.output_item.added', { output_index: index, item: callItem(replyId, k, call, 'in_progress') }),
        event('response.function_call_arguments.delta', { ...at, delta: call.arguments }),
        event('response.function_call_arguments.done', { ...at, name: call.name, arguments: call.arguments }),
        event('response.output_item.done', { output_index: index, item: callItem(replyId, k, call, 'completed') }),
      ]
    },
    end: (answer: DoorAnswer): ResponseEvent[] => [
      ...closeText(),
      event('response.completed', { response: responseObject(answer, context) }),
    ],
    failed: (code: string, message: string): ResponseEvent[] => [
      ...closeText(),
      event('response.failed', { response: { ...pending, status: 'failed', error: { code, message } } }),
    ],
  }
}
