import { ServiceError } from '../../contract/errors'
import type { ResponsesRequest } from '../../contract/schemas'
import { SessionId } from '../../contract/schemas'
import { secondsSetting } from '../../contract/seconds-setting'
import { type ResponseContext, responseTarget } from './answer'

/** Where a Responses request is answered. */
export interface ResponsesPlace {
  /** The session it is stored in; null: answered without storing (`store: false`, no session named). */
  sessionId: string | null
  /** Named by `conversation`: it must exist. */
  mustExist: boolean
  /** A session the service names for the request (none was): created with an idle expiry. */
  implicit: boolean
  /** The response it goes on from (`previous_response_id`): its session's reply. */
  after?: { replyId: string; responseId: string }
}

/** The headers that may name a session, in the order they are taken. */
export interface ResponsesSessionHeaders {
  'x-session-id'?: string
  'session-id'?: string
  session_id?: string
}

/**
 * The session a Responses request names: `conversation` (which must exist), else the session of
 * `previous_response_id`, else `X-Session-Id`, else Codex's `session-id` (`session_id`). With
 * none, `store: false` is answered unstored and any other request gets a session of its own
 * (`newId`), which expires after a time idle (see {@link implicitTtlOf}).
 *
 * @example
 * responsesPlace({ model: 'm', input: 'Hi', store: false }, {}, newId) // { sessionId: null, … }
 */
export function responsesPlace(request: ResponsesRequest, headers: ResponsesSessionHeaders, newId: () => string): ResponsesPlace {
  const conversation = typeof request.conversation === 'string' ? request.conversation : request.conversation?.id
  const previous = request.previous_response_id ?? undefined
  if (conversation !== undefined && previous !== undefined)
    throw new ServiceError('invalid_request', 'previous_response_id: give conversation or previous_response_id, not both')
  const found = previous === undefined ? null : responseTarget(previous)
  // A response id names a session of the caller's, or none (an id made up names nothing).
  const target = found && SessionId.safeParse(found.sessionId).success ? found : null
  if (previous !== undefined && !target)
    throw new ServiceError('previous_response_not_found', `previous_response_id: response "${previous}" not found`)
  const named = conversation ?? target?.sessionId ?? headers['x-session-id'] ?? headers['session-id'] ?? headers.session_id
  const place = {
    mustExist: conversation !== undefined,
    ...(target && previous ? { after: { replyId: target.replyId, responseId: previous } } : {}),
  }
  if (named !== undefined) return { ...place, sessionId: named, implicit: false }
  if (request.store === false) return { ...place, sessionId: null, implicit: false }
  return { ...place, sessionId: newId(), implicit: true }
}

/** How long a session the service named for a Responses request lives after its last write: OpenAI keeps stored responses 30 days. */
export const IMPLICIT_TTL_SECONDS = 30 * 24 * 3600

/**
 * The deployment's RESPONSES_IMPLICIT_TTL_SECONDS (seconds; 0: never expires; unset: 30 days);
 * anything else is a 503 naming the variable.
 */
export const implicitTtlOf = (value: string | undefined): number =>
  secondsSetting('RESPONSES_IMPLICIT_TTL_SECONDS', value, IMPLICIT_TTL_SECONDS)

/** What an answer says of where it stands: stored in the request's session or not, and the response it went on from. */
export const responseContext = (model: string, place: ResponsesPlace, stored: boolean): ResponseContext => ({
  model,
  conversation: stored ? place.sessionId : null,
  store: stored,
  ...(place.after ? { previousResponseId: place.after.responseId } : {}),
})
