import { PackedColumns, type ViewSnapshot } from '../../core'
import type { SessionPins } from './pins'
import type { RewindFirst } from './rewind-first'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

const EMPTY_VIEW = new PackedColumns().prefix()

/**
 * The view a compaction pass reads (`SessionStore.readView`) as the request sees it: a pending
 * rewind's view, else the session's; with its pins and its clearing. No session: the empty view.
 */
export function viewSnapshotOf(
  parts: { view: ViewCache; pins: SessionPins },
  record: SessionRecord | null,
  rewind: RewindFirst,
): ViewSnapshot {
  if (!record) return { view: EMPTY_VIEW, version: 0 }
  // With a rewind pending, its boundary holds what the view holds; the pins are the session's
  // until the rewind is written (one it abandons still counts: a pass then keeps more, never less).
  const held = rewind.pending?.event.boundary.held ?? (rewind.pending ? [] : undefined)
  // A pending rewind's clearing is known by id only (its seqs unknown: a clearing then reads every tool message).
  const clearing = rewind.pending ? { cleared: rewind.pending.event.boundary.cleared ?? [] } : parts.view.clearedOf(record)
  return {
    view: rewind.viewOf(record),
    version: record.version,
    pins: parts.pins.ofView(record.boundarySeq, held),
    ...(clearing.cleared.length > 0 ? { cleared: clearing.cleared } : {}),
    ...('seqs' in clearing ? { clearedSeqs: clearing.seqs } : {}),
  }
}
