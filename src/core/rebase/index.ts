import { type BoundarySkeleton, isMessage, type ViewEvent } from '../events'
import { type PassCut, splitView } from '../pass'
import { analyzeColumns } from '../view'
import { columnsOf, concatColumns } from '../view/columns'

export type RebaseOutcome = { kind: 'rebased'; plan: PassCut } | { kind: 'conflict' }

/**
 * Moves a planned pass onto events appended while it waited for a summarizer (the spec's
 * concurrency rule). New messages are newer than everything the pass preserved, so they join
 * the end of the preserved list — a new system message becomes the pinned one and the previous
 * one is covered — and the summary stays valid. A boundary among them means another pass won, a
 * PINS event that what may be covered changed: this one must not be written. The new messages take the positions after the planned view's.
 *
 * @example
 * const outcome = rebase(plan, await store.readSince(version))
 * if (outcome.kind === 'conflict') return unchanged('conflict')
 */
export function rebase(plan: PassCut, since: readonly (ViewEvent | BoundarySkeleton | { type: 'PINS' })[]): RebaseOutcome {
  // Only a pass writes synthetic messages, and always with its boundary.
  if (!since.every((event) => isMessage(event) && !event.synthetic)) return { kind: 'conflict' }
  const before = concatColumns(plan.before, columnsOf(since as ViewEvent[]))
  if (plan.fixed) {
    const added = Int32Array.from(since, (_, i) => plan.before.length + i)
    return { kind: 'rebased', plan: { ...plan, before, preserved: Int32Array.from([...plan.preserved, ...added]) } }
  }
  return { kind: 'rebased', plan: splitView(before, analyzeColumns(before, plan.pins), plan.cut, plan.summarizing, plan.pins) }
}
