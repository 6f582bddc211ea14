import type { TurnResult } from '../contract/turn-result'
import { type ClientMessage, type NewMessageEvent, textOf } from '../core'
import { openContinuation, turnEvent } from '../turns/open-step'
import { runStep } from '../turns/run-turn'
import type { TurnDeps } from '../turns/session'
import { type DoorRequest, shownOf } from './request'
import { callsAsShown, historyOf, inlineSystemEvent, seedEvents, strayResult } from './seed'

/**
 * The request's new messages written with the reply, as one turn step (see `doorTurn`); with
 * `store`, written alone. With `seeding` they are stored as sent (a history that holds replies of
 * its own); else leading tool messages answer the pending calls and the rest are user (and
 * inline system) messages.
 *
 * @example
 * await newMessagesTurn(request, fresh, false, deps, false) // a turn step with the new question
 */
export async function newMessagesTurn(
  input: DoorRequest,
  fresh: readonly ClientMessage[],
  seeding: boolean,
  deps: TurnDeps,
  store: boolean,
): Promise<TurnResult | null> {
  const { session, estimator } = deps
  const start = input.messages.length - fresh.length
  const fields = input.fields.slice(start)
  const step = input.idempotency ? { idempotency: input.idempotency } : {}
  if (seeding) {
    // A seed after a branch point may begin with the results of the calls the view there owes.
    const owed = fresh[0]?.role === 'tool' ? callsAsShown(await session.newestTurn(), shownOf(input), true) : undefined
    const seeded = seedEvents(fresh, fields, estimator, owed)
    if (store) {
      await session.writeHistory(seeded.added)
      return null
    }
    return runStep({ ...seeded, ...step, closesPending: false, history: historyOf(seeded.added) }, input.request, deps)
  }

  // Leading tool messages answer the pending calls, as `toolResults` would; then user (and inline system) messages.
  let results = 0
  while (results < fresh.length && fresh[results]!.role === 'tool') results++
  const added: NewMessageEvent[] = []
  if (results > 0) {
    // Results name their calls as the door showed them: the stored ids answer.
    const shown = shownOf(input)
    const stored = shown.toolId ? callsAsShown(await session.newestTurn(), shown) : null
    const given = fresh.slice(0, results).map((message) => {
      const id = stored?.get(message.toolCallId!)?.id ?? message.toolCallId!
      // A tool message's content is text or parts (only an assistant's may be null); an error is its text.
      const data = message.content ?? ''
      return message.isError ? { id, error: textOf(data) } : { id, data }
    })
    const key = (at: number, part: 'id' | 'name') => `${fields[at]}.${part === 'id' ? input.toolCallIdField : 'name'}`
    const opened = await openContinuation(given, session, estimator, key)
    if (opened.kind === 'done') return opened.result
    added.push(opened.added)
  }
  for (const [i, message] of fresh.entries()) {
    if (i < results) continue
    if (message.role === 'tool') throw strayResult(fields[i]!)
    added.push(
      message.role === 'system'
        ? inlineSystemEvent(textOf(message.content), estimator)
        : turnEvent({ role: 'user', content: message.content }, estimator),
    )
  }
  if (store) {
    await session.writeHistory(added)
    return null
  }
  // A continuation's tool event stands for all its results: named by the first.
  const addedFields = results > 0 ? [fields[0]!, ...fields.slice(results)] : fields
  return runStep({ ...step, added, fields: addedFields, closesPending: results === 0 }, input.request, deps)
}
