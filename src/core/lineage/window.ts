import { lineageRuns, type RewindStep, type Run } from './index'

/** Where a page of the lineage lies against the event it is asked around. */
export type WindowPosition = 'around' | 'before' | 'after'

/** The lineage's seqs below `at` (included), newest first, a run at a time. */
function* seqsDown(runs: Iterable<Run>): Generator<number> {
  for (const run of runs) for (let seq = run.to; seq >= run.from; seq--) yield seq
}

/** Takes at most `count` values. */
function take(values: Iterator<number>, count: number): number[] {
  const taken: number[] = []
  for (let next = values.next(); taken.length < count && !next.done; next = values.next()) taken.push(next.value)
  return taken
}

/** The lineage's seqs above `seq` (excluded) up to `version`, oldest first, at most `count`. */
function seqsAbove(seq: number, version: number, rewindAt: (seq: number) => RewindStep | null, count: number): number[] {
  // The runs between the tip and the anchor's run: as many as rewinds stand between them, each one row.
  const runs: Run[] = []
  for (const run of lineageRuns(version, rewindAt)) {
    runs.push(run)
    if (run.from <= seq) break
  }
  const above: number[] = []
  for (const run of runs.reverse()) {
    for (let at = Math.max(run.from, seq + 1); at <= run.to && above.length < count; at++) above.push(at)
  }
  return above
}

/**
 * The seqs of one page of a session's lineage, oldest first: the newest `limit` when `anchor` is
 * null, else those `before` or `after` the seq `anchor` (excluded), or `around` it (included, with
 * as many older as newer where the lineage has them). `anchor` must be on the lineage.
 *
 * @example
 * lineageWindow(null, 12, 'around', 3, () => null) // [10, 11, 12]: the newest
 * lineageWindow(10, 12, 'around', 5, () => null) // [8, 9, 10, 11, 12]
 */
export function lineageWindow(
  anchor: number | null,
  version: number,
  position: WindowPosition,
  limit: number,
  rewindAt: (seq: number) => RewindStep | null,
): number[] {
  const older = (from: number, count: number) => take(seqsDown(lineageRuns(from, rewindAt)), count).reverse()
  if (anchor === null) return older(version, limit)
  if (position === 'before') return older(anchor - 1, limit)
  if (position === 'after') return seqsAbove(anchor, version, rewindAt, limit)
  const newerWanted = Math.floor((limit - 1) / 2)
  const newer = seqsAbove(anchor, version, rewindAt, limit - 1)
  const olderPart = older(anchor - 1, limit - 1 - Math.min(newer.length, newerWanted))
  return [...olderPart, anchor, ...newer.slice(0, limit - 1 - olderPart.length)]
}
