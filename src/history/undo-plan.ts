import { ServiceError } from '../contract/errors'
import { type Boundary, type CompactionEvent, lineageRuns, onLineage, undoablePass, undoBoundary } from '../core'
import type { SessionLog, ViewEntry } from '../store/log/log'
import { viewAt } from '../store/log/rewind-plan'
import type { SessionRecord } from '../store/log/session-row'
import type { ViewCache } from '../store/log/view-cache'

/** An undo as it would be written now: its boundary and the pass it takes back. */
export interface UndoPlan {
  boundary: Boundary
  passSeq: number
}

/**
 * The undo of the pass `passId` (see the core's `undoBoundary`): the view just before the pass,
 * then what the view holds now after it but its summary. Only the newest pass on the lineage that
 * no undo names can be undone (409 `compaction_superseded` for another pass); an id that names no
 * pass on the lineage (an undo included) is a 404. Its cost follows that view and the passes
 * walked over since the one undone, never the log.
 *
 * @example
 * const plan = planUndo({ log, view }, record, 'evt_9')
 */
export function planUndo(parts: { log: SessionLog; view: ViewCache }, record: SessionRecord, passId: string): UndoPlan {
  const { log, view } = parts
  const notFound = () => new ServiceError('not_found', `no compaction pass "${passId}" on this session's lineage`)
  const place = log.placeOf(passId)
  if (place?.type !== 'COMPACTION') throw notFound()
  const isOnLineage = onLineage(lineageRuns(record.version, log.rewinds.at))
  const [target] = log.range(place.seq, place.seq) as CompactionEvent[]
  if (!isOnLineage(place.seq) || target!.boundary.undoes !== undefined) throw notFound()
  const undoable = undoablePass(compactionsOnLineage(log, record.version, isOnLineage))
  if (undoable?.id !== passId) {
    const newest = undoable ? `the newest is "${undoable.id}"` : 'it is undone already'
    throw new ServiceError(
      'compaction_superseded',
      `compaction "${passId}" is not the newest pass not undone (${newest}): only that one can be undone`,
    )
  }
  const { named, restored: before, restoredAsStored } = viewAt(log, place.seq - 1)
  const current = view.snapshot(record)
  const summary = new Set(target!.boundary.summary)
  const later: number[] = []
  for (let p = 0; p < current.length; p++) if (current.seq(p) > place.seq) later.push(current.seq(p))
  const after = log.entriesOf(later).filter((entry) => !summary.has(entry.id))
  // The boundary names exactly these: the view is advanced with them, not read again.
  view.remember([...restoredAsStored, ...after] satisfies ViewEntry[])
  return { boundary: undoBoundary(current, { named: named?.boundary ?? null, view: before }, after, passId), passSeq: place.seq }
}

/** The lineage's COMPACTION events, newest first, read one at a time through their index. */
function* compactionsOnLineage(log: SessionLog, version: number, isOnLineage: (seq: number) => boolean) {
  for (let at = version + 1; ; ) {
    const [found] = log.boundariesBefore(at, 1) as CompactionEvent[]
    if (!found) return
    at = found.seq
    if (isOnLineage(found.seq)) yield found
  }
}
