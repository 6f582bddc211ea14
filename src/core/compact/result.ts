import type { ClearedEntry, CompactionEvent, MessageEvent } from '../events'
import type { PassCut } from '../pass'
import type { SessionStore } from '../session-store'
import { type Positions, seqsAt } from '../view/columns'
import { recordPass } from './pass-events'

export type UnchangedReason = 'trigger_not_fired' | 'nothing_to_cover' | 'summarizer_declined' | 'summarizer_failed' | 'conflict'

/**
 * What a pass did. It names the events it covered and kept by seq, in view order (a view may be
 * long: whoever answers with them reads them then); the summary events it wrote are whole.
 */
export interface CompactionResult {
  unchanged: boolean
  reason: UnchangedReason | null
  covered: Int32Array
  pinned: Int32Array
  /** The summary events the pass wrote, whole. */
  summary: MessageEvent[]
  preserved: Int32Array
  tokensEstimatedSaved: number
  boundary: CompactionEvent | null
  /** The session's version after the call. */
  version: number
  /** Present (true) on a dry run: what the pass would do, nothing written. */
  dryRun?: true
}

const NONE = new Int32Array(0)

/** The result of a pass that changed nothing, and why. */
export const unchangedResult = (reason: UnchangedReason, version: number): CompactionResult => ({
  unchanged: true,
  reason,
  covered: NONE,
  pinned: NONE,
  summary: [],
  preserved: NONE,
  tokensEstimatedSaved: 0,
  boundary: null,
  version,
})

/** What a pass would do, without a summary: its lists and what it would save; no boundary, nothing written. */
export async function dryRun(
  plan: PassCut,
  cleared: readonly ClearedEntry[],
  version: number,
  store: SessionStore,
): Promise<CompactionResult> {
  const { kept, seqs } = await keptBy(plan, store)
  const { tokensEstimatedSaved } = recordPass(plan, kept, [], { id: 'dry-run', timestamp: '' }, cleared)
  return { ...passResult(plan, seqs, [], tokensEstimatedSaved, null, version), dryRun: true }
}

/** The ids a pass keeps (what its boundary names), and its lists as seqs. */
export async function keptBy(plan: PassCut, store: SessionStore) {
  const seqs = (positions: Positions) => seqsAt(plan.before, positions)
  const kept = {
    pinned: await store.readIds(seqs(plan.pinned)),
    held: plan.held.length > 0 ? await store.readIds(seqs(plan.held)) : [],
    preserved: await store.readIds(seqs(plan.preserved)),
  }
  return { kept, seqs }
}

/** The result of a pass that changed the view (or would have, on a dry run). */
export const passResult = (
  plan: PassCut,
  seqs: (positions: Positions) => Int32Array,
  summary: MessageEvent[],
  tokensEstimatedSaved: number,
  boundary: CompactionEvent | null,
  version: number,
): CompactionResult => ({
  unchanged: false,
  reason: null,
  covered: seqs(plan.covered),
  pinned: seqs(plan.pinned),
  summary,
  preserved: seqs(plan.preserved),
  tokensEstimatedSaved,
  boundary,
  version,
})
