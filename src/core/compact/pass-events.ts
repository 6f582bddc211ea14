import type { ClearedEntry, NewCompactionEvent, NewMessageEvent, ViewEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import type { PassCut } from '../pass'
import { analyzeColumns } from '../view'
import { columnsOf, concatColumns, pickColumns } from '../view/columns'

/** The ids of the events a pass keeps, in the order of its lists. */
export interface KeptIds {
  pinned: string[]
  /** Those of `pinned` there because of a pin. */
  held: string[]
  preserved: string[]
}

/** The clearing entries of the events a pass keeps (a covered event's clearing leaves with it). */
function keptCleared(cleared: readonly ClearedEntry[], kept: KeptIds): { cleared?: ClearedEntry[] } {
  if (cleared.length === 0) return {}
  const ids = new Set([...kept.pinned, ...kept.preserved])
  const still = cleared.filter((entry) => ids.has(entry.eventId))
  return still.length > 0 ? { cleared: still } : {}
}

/**
 * The exact events a pass appends (step 8 of the spec): one boundary naming the view after the
 * pass — pinned, then summary, then preserved — followed by the summary events it names.
 */
export function recordPass(
  plan: PassCut,
  kept: KeptIds,
  summary: NewMessageEvent[],
  boundary: { id: string; timestamp: string },
  cleared: readonly ClearedEntry[] = [],
  prepared = false,
): { events: [NewCompactionEvent, ...NewMessageEvent[]]; tokensEstimatedSaved: number } {
  // Summary events are not written yet: they have no seq, and are never system messages.
  const written = columnsOf(summary.map((event) => ({ ...event, seq: 0 }) as ViewEvent))
  const after = concatColumns(
    concatColumns(pickColumns(plan.before, plan.pinned), written),
    pickColumns(plan.before, plan.preserved),
  )
  // Tokens count every non-system event and the latest system message: pins do not change them.
  const tokensAfter = analyzeColumns(after).tokens
  const tokensEstimatedSaved = plan.beforeTokens - tokensAfter
  const event = newCompactionEvent(boundary, {
    pinned: kept.pinned,
    summary: summary.map((e) => e.id),
    preserved: kept.preserved,
    coveredEventCount: plan.covered.length,
    tokensEstimatedSaved,
    tokensBefore: plan.beforeTokens,
    tokensAfter,
    ...(kept.held.length > 0 ? { held: kept.held } : {}),
    ...keptCleared(cleared, kept),
    ...(prepared ? { prepared: true as const } : {}),
  })
  return { events: [event, ...summary], tokensEstimatedSaved }
}
