import { ServiceError } from '../../contract/errors'
import { SessionId } from '../../contract/schemas'

/**
 * Which session a Messages request is about: `X-Session-Id`, else Claude Code's
 * `x-claude-code-session-id`, else the session named in `metadata.user_id` (JSON
 * `{"session_id"}`, or the older `user_…_session_<id>`). A subagent's request
 * (`x-claude-code-agent-id`) has a session of its own, `<session>:<agent>`, so its transcript
 * never interleaves with the main one.
 */
export interface MessagesSessionKey {
  sessionId: string
  /** A subagent's: the session it works for. */
  parentSessionId?: string
}

export interface MessagesSessionHeaders {
  sessionId?: string
  claudeCodeSessionId?: string
  agentId?: string
}

/** The session id inside `metadata.user_id`, when it names one. */
export function sessionOfUserId(userId: string | null | undefined): string | undefined {
  if (!userId) return undefined
  if (userId.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(userId)
      const id = (parsed as { session_id?: unknown } | null)?.session_id
      return typeof id === 'string' && id !== '' ? id : undefined
    } catch {
      return undefined
    }
  }
  return /_session_([^_\s]+)$/.exec(userId)?.[1]
}

/**
 * The request's session, or null when nothing names one.
 *
 * @example
 * messagesSessionKey({ claudeCodeSessionId: 's1', agentId: 'a7' }, undefined) // { sessionId: 's1:a7', parentSessionId: 's1' }
 */
export function messagesSessionKey(
  headers: MessagesSessionHeaders,
  userId: string | null | undefined,
): MessagesSessionKey | null {
  const main = headers.sessionId ?? headers.claudeCodeSessionId ?? sessionOfUserId(userId)
  if (main === undefined) return null
  return headers.agentId ? { sessionId: `${main}:${headers.agentId}`, parentSessionId: main } : { sessionId: main }
}

/**
 * The session a request names (see {@link messagesSessionKey}), or the 400 that says how to name
 * one; an id the API refuses is a 400 too.
 */
export function requiredSessionKey(headers: MessagesSessionHeaders, userId: string | null | undefined): MessagesSessionKey {
  const key = messagesSessionKey(headers, userId)
  if (!key) {
    throw new ServiceError(
      'invalid_request',
      'X-Session-Id: the header (or x-claude-code-session-id, or a session_id in metadata.user_id) is required: it names the session',
    )
  }
  const checked = SessionId.safeParse(key.sessionId)
  if (!checked.success)
    throw new ServiceError(
      'invalid_request',
      `session id "${key.sessionId}": ${checked.error.issues[0]?.message ?? 'is invalid'}`,
    )
  return key
}
