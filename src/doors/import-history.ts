import { ServiceError } from '../contract/errors'
import type { ClientMessage, SessionEvent, TokenEstimator } from '../core'
import { turnEvent } from '../turns/open-step'
import type { TurnSession } from '../turns/session'
import { seedEvents } from './seed'

/** A history brought from elsewhere (a JSON import, read by `wire/import`), in the doors' neutral shape. */
export interface ImportedHistory {
  messages: ClientMessage[]
  /** Where each came from, for errors naming it (`messages[3]`). */
  fields: string[]
  system?: string
}

/**
 * Stores a history that carries no event ids (see {@link importedHistory}) as a client seeding
 * the session would: its system prompt first, each message as it is, consecutive tool results as
 * one tool event. Into an absent or empty session only (a 409 `session_exists` otherwise, also for
 * a retry of one that was written), since nothing tells what of it the session holds already.
 */
export async function importHistory(
  history: ImportedHistory,
  deps: { session: TurnSession; estimator: TokenEstimator },
): Promise<SessionEvent[]> {
  if ((await deps.session.readView()).version > 0)
    throw new ServiceError(
      'session_exists',
      'the session holds events already: a history without event ids goes into an absent or empty session only (a jsonl export keeps its ids)',
    )
  if (history.messages.length === 0) throw new ServiceError('invalid_request', 'body: the history holds no message to import')
  const system = history.system === undefined ? [] : [turnEvent({ role: 'system', content: history.system }, deps.estimator)]
  return deps.session.writeHistory([...system, ...seedEvents(history.messages, history.fields, deps.estimator).added])
}
