import { type CompactionSkeleton, isMessage, type MessageEvent, type ViewEvent } from '../events'
import { type PassCut, splitView } from '../pass'
import { analyzeView } from '../view'

export type RebaseOutcome<E extends ViewEvent = MessageEvent> = { kind: 'rebased'; plan: PassCut<E> } | { kind: 'conflict' }

/**
 * Moves a planned pass onto events appended while it waited for a summarizer (the spec's
 * concurrency rule). New messages are newer than everything the pass preserved, so they join
 * the end of the preserved list — a new system message becomes the pinned one and the previous
 * one is covered — and the summary stays valid. A boundary among them means another pass won:
 * this one must not be written.
 *
 * @example
 * const outcome = rebase(plan, await store.readSince(version))
 * if (outcome.kind === 'conflict') return unchanged('conflict')
 */
export function rebase<E extends ViewEvent>(plan: PassCut<E>, since: readonly (E | CompactionSkeleton)[]): RebaseOutcome<E> {
  // Only a pass writes synthetic messages, and always with its boundary.
  if (!since.every((event) => isMessage(event) && !event.synthetic)) return { kind: 'conflict' }
  const before = [...plan.before, ...(since as E[])]
  return { kind: 'rebased', plan: splitView(before, analyzeView(before), plan.cut, plan.summarizing) }
}
