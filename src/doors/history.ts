import { ServiceError } from '../contract/errors'
import type { ClientMessage, SessionEvent, TokenEstimator } from '../core'
import type { TurnSession } from '../turns/session'
import { callsAsShown, seedEvents } from './seed'

/**
 * Messages a client adds to a session without asking for a reply (a Conversations client's
 * items): stored as a seed is, each as it is, consecutive tool results as one tool event; leading
 * results answer the calls the session owes.
 *
 * @example
 * const written = await appendHistory([{ role: 'user', content: 'Hi' }], ['items[0]'], { session, estimator })
 */
export async function appendHistory(
  messages: readonly ClientMessage[],
  fields: readonly string[],
  deps: { session: TurnSession; estimator: TokenEstimator },
): Promise<SessionEvent[]> {
  if (messages.length === 0) throw new ServiceError('invalid_request', 'items: give at least one item to store')
  const owed = messages[0]!.role === 'tool' ? callsAsShown(await deps.session.newestTurn(), { inline: true }, true) : undefined
  return deps.session.writeHistory(seedEvents(messages, fields, deps.estimator, owed).added)
}
