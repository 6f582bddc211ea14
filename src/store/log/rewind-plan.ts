import {
  type Boundary,
  leftBehind,
  lineageRuns,
  namedIds,
  prefixEnd,
  type RewindPoint,
  RewindPointError,
  rewindBoundary,
  rewindTargetProblem,
  viewAfter,
} from '../../core'
import type { Branch, SessionBranches } from './branches'
import type { SessionLog, ViewEntry } from './log'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

/**
 * The view as of a point of the log (its prefix's projection): the prefix's end, its newest
 * boundary and the view's entries, in O(that view + the messages from that boundary to the
 * point). A point that is no message of the conversation is a `RewindPointError` naming `field`.
 */
export function viewAsOf(log: SessionLog, point: RewindPoint, field: string) {
  const target = point.to === null ? null : log.placeOf(point.to)
  if (point.to !== null) {
    const problem = rewindTargetProblem(field, point.to, target ?? undefined)
    if (problem) throw new RewindPointError(problem)
  }
  const end = prefixEnd(point, () => target!.seq)
  return { end, ...viewAt(log, end) }
}

/**
 * The view of the log prefix that ends at `end`: its newest boundary and the view's entries, in
 * O(that view + the messages from that boundary to `end`).
 */
export function viewAt(log: SessionLog, end: number) {
  const named = log.boundaryAtOrBefore(end)
  const stored = named ? log.entriesByIds(namedIds(named.boundary)) : new Map<string, ViewEntry>()
  const restored = named
    ? [...viewAfter(named, (id) => stored.get(id), log.entriesAfter(named.seq, end))]
    : [...log.entriesAfter(0, end)]
  // The same entries as stored (a cleared one at its stored size): what the view cache keeps.
  const restoredAsStored = restored.map((entry) => stored.get(entry.id) ?? entry)
  return { named, restored, restoredAsStored }
}

/** A rewind as it would be written now: its boundary (null: the view would not change) and the messages it abandons. */
export interface RewindPlan {
  boundary: Boundary | null
  /** Message events of the lineage that the rewind takes off it. */
  abandoned: number
  /** The view as of the point, in view order. */
  restored: ViewEntry[]
  /** The branch it abandons, recorded with its REWIND (null: it abandons no message). */
  branch: Branch | null
}

/**
 * The rewind to a point of the session's log. Its cost follows the view as of the point (its
 * newest boundary, what that names, the messages after it up to the point) and the distance to
 * where the lineages part (a row per rewind walked over, the abandoned rows counted), never the
 * log. An unknown point, a boundary's or a summary event's is a `RewindPointError` naming `field`.
 *
 * @example
 * const plan = planRewind({ log, view, branches }, record, { to: 'evt_3', position: 'before' })
 */
export function planRewind(
  parts: { log: SessionLog; view: ViewCache; branches: SessionBranches },
  record: SessionRecord,
  point: RewindPoint,
  field = 'to',
): RewindPlan {
  const { log, view } = parts
  const { end, named, restored, restoredAsStored } = viewAsOf(log, point, field)
  const boundary = rewindBoundary(view.snapshot(record), { named: named?.boundary ?? null, view: restored })
  // The REWIND names exactly these: the view is advanced with them, not read again.
  view.remember(restoredAsStored)
  if (boundary === null) return { boundary, abandoned: 0, restored, branch: null }
  const rewindAt = log.rewinds.at
  const left = leftBehind(lineageRuns(record.version, rewindAt), lineageRuns(end, rewindAt))
  const abandoned = left.reduce((total, run) => total + log.messagesIn(run.from, run.to), 0)
  const branch = parts.branches.describe(left, abandoned, lineageRuns(record.version, rewindAt))
  return { boundary, abandoned, restored, branch }
}
