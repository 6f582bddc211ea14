import { fromBase64url, toBase64url } from '../../contract/base64url'
import type { ResponseObject, ResponseUsage } from '../../contract/schemas'
import type { Usage } from '../../contract/turn-result'
import { textOf } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'
import { callItem, messageItem } from './items'

/**
 * The Responses door's answers on the OpenAI Responses wire: a `response` object (its stream:
 * `./stream`). Ids follow the stored reply, so a retry answers the same response id and item ids.
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
export const responseUsage = (usage: Usage | null): ResponseUsage | null =>
  usage && {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.totalTokens,
  }

/** The answer's output items: its text as a message, then the calls the client is to run. */
function outputOf(answer: DoorAnswer) {
  const text = textOf(answer.reply.message.content)
  return [
    ...(text !== '' ? [messageItem(answer.reply.id, text, 'completed')] : []),
    ...requestedCalls(answer).map((call, k) => callItem(answer.reply.id, k, call, 'completed')),
  ]
}

/** The response's envelope: everything but its output, status and usage. */
export const envelope = (id: string, createdAt: number, context: ResponseContext) => ({
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
export function responseObject(answer: DoorAnswer, context: ResponseContext): ResponseObject {
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
