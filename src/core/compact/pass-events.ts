import type { NewCompactionEvent, NewMessageEvent, ViewEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import type { PassCut } from '../pass'
import { viewTokens } from '../view'

/**
 * The exact events a pass appends (step 8 of the spec): one boundary naming the view after the
 * pass — pinned, then summary, then preserved — followed by the summary events it names.
 */
export function recordPass<E extends ViewEvent>(
  plan: PassCut<E>,
  summary: NewMessageEvent[],
  boundary: { id: string; timestamp: string },
): { events: [NewCompactionEvent, ...NewMessageEvent[]]; tokensEstimatedSaved: number } {
  const ids = (events: readonly { id: string }[]) => events.map((event) => event.id)
  const tokensEstimatedSaved = viewTokens(plan.before) - viewTokens([...plan.pinned, ...summary, ...plan.preserved])
  const event = newCompactionEvent(boundary, {
    pinned: ids(plan.pinned),
    summary: ids(summary),
    preserved: ids(plan.preserved),
    coveredEventCount: plan.covered.length,
    tokensEstimatedSaved,
  })
  return { events: [event, ...summary], tokensEstimatedSaved }
}
