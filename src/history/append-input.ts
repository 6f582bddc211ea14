import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import { contentTooLarge } from '../contract/limits'
import { type AppendInput, appendProblem } from '../contract/schemas'
import {
  formatProblem,
  type Message,
  type NewMessageEvent,
  newMessageEvent,
  type SessionEvent,
  type TokenEstimator,
} from '../core'

/**
 * The checks an append owns whoever calls it (the HTTP layer validates first; the store checks
 * again because it is an RPC boundary): the request-wide rules, then each event's size.
 */
export function checkAppendInputs(inputs: readonly AppendInput[]): void {
  const problem = appendProblem(inputs)
  if (problem) throw new ServiceError('invalid_request', formatProblem('', problem))
  for (const [i, input] of inputs.entries()) {
    const tooLarge = contentTooLarge(`events[${i}]`, input.message)
    if (tooLarge) throw tooLarge
  }
}

/**
 * A message with its keys in one order, so that two equal messages serialize the same. An append
 * retried with the same id must carry the same message, byte for byte (arguments included); a
 * resent chat history compares arguments as JSON instead (the core's `messageKey`).
 */
const canonical = (m: Message) =>
  JSON.stringify([
    m.role,
    m.content,
    (m.toolCalls ?? []).map((c) => [c.id, c.name, c.arguments]),
    (m.toolResponses ?? []).map((r) => [r.id, r.name, r.data]),
  ])

/** What an append must write, and how to answer it once written. */
export interface AppendPlan {
  /** The inputs not yet in the log, in request order. */
  fresh: AppendInput[]
  /** The answer in request order: stored events as they were, then the new ones as written. */
  answer(written: readonly SessionEvent[]): SessionEvent[]
}

/**
 * Splits an append into what is new and what is a retry: an input whose id is already stored must
 * carry the same message (else 409 `id_conflict`) and is answered as stored, not written again.
 *
 * @example
 * const plan = planAppend(inputs, log.byIds(ids))
 * const written = commit(plan.fresh.map(toEvent))
 * return plan.answer(written)
 */
export function planAppend(inputs: readonly AppendInput[], stored: ReadonlyMap<string, SessionEvent>): AppendPlan {
  const storedFor = (input: AppendInput) => (input.id === undefined ? undefined : stored.get(input.id))
  for (const input of inputs) {
    const found = storedFor(input)
    if (found && (found.type !== 'MESSAGE' || canonical(found.message) !== canonical(input.message))) {
      throw new ServiceError('id_conflict', `event id "${input.id}" is already in the log with a different message`)
    }
  }
  return {
    fresh: inputs.filter((input) => !storedFor(input)),
    answer(written) {
      // The new events were written in the order of the fresh inputs: hand them out in turn.
      const next = written[Symbol.iterator]()
      return inputs.map((input) => storedFor(input) ?? (next.next().value as SessionEvent))
    },
  }
}

/** The events appended inputs become: an id minted where none was given, timestamps normalized (now by default). */
export function newEventsOf(inputs: readonly AppendInput[], estimator: TokenEstimator): NewMessageEvent[] {
  const at = new Date().toISOString()
  return inputs.map((input) =>
    newMessageEvent(
      {
        id: input.id ?? newEventId(),
        message: input.message,
        timestamp: input.timestamp ? new Date(input.timestamp).toISOString() : at,
        metadata: input.metadata ?? {},
      },
      estimator,
    ),
  )
}
