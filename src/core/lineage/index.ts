import type { Boundary, RewindPoint } from '../events'
import { analyzeColumns } from '../view'
import { PackedColumns, type ViewColumns, type ViewEntry } from '../view/columns'

/** What the lineage walk needs of an event: its place, and a rewind's point. */
export interface LineageEvent {
  type: string
  seq: number
  rewind?: RewindPoint
}

/**
 * The seq the log prefix of a point ends at: the event's own (`at`), the one before it
 * (`before`); 0 for `to: null` (the empty log). `seqOf` finds an event's seq by id.
 *
 * @example
 * prefixEnd({ to: 'u3', position: 'before' }, (id) => seqs.get(id)!) // the seq of u3, less one
 */
export function prefixEnd(point: RewindPoint, seqOf: (id: string) => number): number {
  if (point.to === null) return 0
  const seq = seqOf(point.to)
  return point.position === 'at' ? seq : seq - 1
}

/**
 * The lineage of a log: the seqs of the events the current view descends from, ascending. Read
 * from the end backwards; on a REWIND, go on from its point, skipping everything in between (the
 * events skipped are abandoned). A log without rewinds is its own lineage.
 *
 * @example
 * lineage(log, seqOf) // [1, 2, 5, 6]: events 3 and 4 abandoned by the REWIND at 5, whose point is `at` event 2
 */
export function lineage(log: readonly LineageEvent[], seqOf: (id: string) => number): number[] {
  const on: number[] = []
  for (let at = log.length; at > 0; ) {
    const event = log[at - 1]!
    on.push(at)
    at = event.type === 'REWIND' ? prefixEnd(event.rewind!, seqOf) : at - 1
  }
  return on.reverse()
}

/** Consecutive seqs of the log, `from` to `to`, both included. */
export interface Run {
  from: number
  to: number
}

/** The newest REWIND at or before a seq: its own seq, and where its point's prefix ends. */
export interface RewindStep {
  seq: number
  end: number
}

/**
 * The lineage from the end of the prefix `at` backwards, as runs of seqs, newest first: each from
 * the newest REWIND at or before where the walk stands (the REWIND included) up to there; then the
 * walk goes on from that rewind's point. Lazy: a reader takes only the runs it needs.
 *
 * @example
 * [...lineageRuns(8, rewindAtOrBefore)] // [{ from: 8, to: 8 }, { from: 1, to: 4 }]: 5–7 abandoned by the REWIND at 8
 */
export function* lineageRuns(at: number, rewindAtOrBefore: (seq: number) => RewindStep | null): Generator<Run> {
  while (at > 0) {
    const rewind = rewindAtOrBefore(at)
    if (rewind === null) {
      yield { from: 1, to: at }
      return
    }
    yield { from: rewind.seq, to: at }
    at = rewind.end
  }
}

/** A lineage walk's step function (see {@link lineageRuns}), remembering what it read. */
export interface RememberedSteps {
  at(seq: number): RewindStep | null
  /** Whether a seq is on the lineage as the log ends now: its runs walked once, kept until the next REWIND. */
  onLineage(seq: number): boolean
  /** A REWIND was written at `seq`: what was read past it no longer holds. */
  rewound(seq: number): void
  /** Forgets everything read: the log's tail was rolled back or the log wiped. */
  forget(): void
}

/**
 * A walk's steps remembered: a REWIND never changes once written, so the newest one at or before
 * a seq, once read, is the answer for every seq from it up to that one. Each stretch of the log is
 * read once; a later walk over it (every search, pin fold, branch page) reads nothing. A read past
 * the log's end (a walk from the end of everything) holds until the next REWIND is written.
 *
 * @example
 * const steps = rememberedSteps((seq) => readRewindAtOrBefore(seq))
 * lineageRuns(version, steps.at) // the rewinds read once per object, not once per walk
 */
export function rememberedSteps(read: (seq: number) => RewindStep | null): RememberedSteps {
  // Stretches [from, to] whose step is known (from: the REWIND's seq, 0 for none), by `from`; they never overlap.
  let known: { from: number; to: number; step: RewindStep | null }[] = []
  // The lineage from the end of everything, oldest run first (null: not walked since the last REWIND).
  let lineage: Run[] | null = null
  /** The index of the last stretch with `from <= seq` (-1: none). */
  const last = (seq: number) => {
    let [low, high] = [0, known.length - 1]
    while (low <= high) {
      const mid = (low + high) >> 1
      if (known[mid]!.from <= seq) low = mid + 1
      else high = mid - 1
    }
    return high
  }
  const steps: RememberedSteps = {
    at(seq) {
      const i = last(seq)
      if (i >= 0 && seq <= known[i]!.to) return known[i]!.step
      const step = read(seq)
      const from = step?.seq ?? 0
      const j = last(from)
      if (j >= 0 && known[j]!.from === from) known[j]!.to = Math.max(known[j]!.to, seq)
      else known.splice(j + 1, 0, { from, to: seq, step })
      return step
    },
    onLineage(seq) {
      lineage ??= [...lineageRuns(Number.MAX_SAFE_INTEGER, steps.at)].reverse()
      let [low, high] = [0, lineage.length - 1]
      while (low <= high) {
        const mid = (low + high) >> 1
        const run = lineage[mid]!
        if (seq < run.from) high = mid - 1
        else if (seq > run.to) low = mid + 1
        else return true
      }
      return false
    },
    rewound(seq) {
      lineage = null
      known = known.filter((stretch) => stretch.from < seq)
      for (const stretch of known) stretch.to = Math.min(stretch.to, seq - 1)
    },
    forget() {
      known = []
      lineage = null
    },
  }
  return steps
}

/**
 * The runs of the `current` lineage that the `next` one leaves out, walking both only until they
 * meet: two walks that reach the same place go on alike (a walk is decided by where it stands),
 * so what lies before that is shared.
 *
 * @example
 * leftBehind(lineageRuns(version, rewinds), lineageRuns(end, rewinds)) // what a rewind to `end` abandons
 */
export function leftBehind(current: Iterator<Run>, next: Iterator<Run>): Run[] {
  const mine: Run[] = []
  const theirs: Run[] = []
  let a = current.next()
  let b = next.next()
  while (!(a.done && b.done)) {
    if (!a.done && !b.done && a.value.to === b.value.to) break
    if (b.done || (!a.done && a.value.to > b.value.to)) {
      mine.push(a.value)
      a = current.next()
    } else {
      theirs.push(b.value)
      b = next.next()
    }
  }
  return subtractRuns(mine, theirs)
}

/**
 * Whether a seq is on a lineage given as its runs (newest first, as {@link lineageRuns} yields
 * them), reading only the runs down to the seq asked for; seq 0 (the start) is on every lineage.
 *
 * @example
 * const on = onLineage(lineageRuns(version, rewinds))
 * on(3) // false: a rewind took 3 off the lineage
 */
export function onLineage(runs: Iterator<Run>): (seq: number) => boolean {
  const read: Run[] = []
  let done = false
  return (seq) => {
    if (seq === 0) return true
    while (!done && (read.length === 0 || read.at(-1)!.from > seq)) {
      const next = runs.next()
      if (next.done) done = true
      else read.push(next.value)
    }
    return read.some((run) => run.from <= seq && seq <= run.to)
  }
}

/** The seqs of runs `a` that are in none of runs `b`, as runs, in `a`'s order. */
export function subtractRuns(a: readonly Run[], b: readonly Run[]): Run[] {
  const cuts = [...b].sort((x, y) => x.from - y.from)
  const out: Run[] = []
  for (const run of a) {
    let from = run.from
    for (const cut of cuts) {
      if (cut.to < from || cut.from > run.to) continue
      if (cut.from > from) out.push({ from, to: cut.from - 1 })
      from = Math.max(from, cut.to + 1)
    }
    if (from <= run.to) out.push({ from, to: run.to })
  }
  return out
}

/**
 * The boundary of a rewind: the view as of its point (`restored`: that prefix's newest boundary,
 * null when it has none, and its view) replacing the current one. The restored view keeps the
 * parts its boundary named (pinned, summary); everything after them is preserved. `coveredEventCount`
 * counts the messages that leave the view; `tokensEstimatedSaved` is negative when it grows.
 * Null when the view would not change.
 *
 * @example
 * rewindBoundary(columnsOf(project(log)), { named: newestBoundaryBefore(p)?.boundary ?? null, view: project(log.slice(0, p)) })
 */
export function rewindBoundary(
  current: ViewColumns,
  restored: { named: Boundary | null; view: readonly ViewEntry[] },
): Boundary | null {
  const { view } = restored
  if (view.length === current.length && view.every((event, i) => event.seq === current.seq(i))) return null
  return viewBoundary(current, restored)
}

/**
 * The boundary that names a view (`restored`: its events, and the boundary whose pinned and
 * summary parts it keeps) in place of the `current` one: what {@link rewindBoundary} writes, the
 * same view or not. Its tokens before and after are each view's as `/view` counts them (the latest
 * system message only).
 */
export function viewBoundary(current: ViewColumns, restored: { named: Boundary | null; view: readonly ViewEntry[] }): Boundary {
  const { view, named } = restored
  const kept = new Set(view.map((event) => event.seq))
  const pinned = named?.pinned ?? []
  const summary = named?.summary ?? []
  const head = new Set([...pinned, ...summary])
  let leaving = 0
  for (let p = 0; p < current.length; p++) if (!kept.has(current.seq(p))) leaving++
  const tokensBefore = analyzeColumns(current).tokens
  const tokensAfter = analyzeColumns(PackedColumns.of(view)).tokens
  return {
    pinned: [...pinned],
    summary: [...summary],
    preserved: view.filter((event) => !head.has(event.id)).map((event) => event.id),
    coveredEventCount: leaving,
    tokensEstimatedSaved: tokensBefore - tokensAfter,
    tokensBefore,
    tokensAfter,
    ...(named?.held?.length ? { held: [...named.held] } : {}),
    ...clearedIn(named, view),
  }
}

/** A boundary's clearing of the events a restored view keeps, carried into the boundary naming that view. */
function clearedIn(named: Boundary | null, view: readonly ViewEntry[]): { cleared?: Boundary['cleared'] } {
  if (!named?.cleared?.length) return {}
  const ids = new Set(view.map((event) => event.id))
  const cleared = named.cleared.filter((entry) => ids.has(entry.eventId))
  return cleared.length > 0 ? { cleared } : {}
}
/** What a rewind may go back to: a message of the log that compaction did not write. */
export type RewindTarget = { type: string; synthetic: boolean } | undefined

/**
 * Why an event cannot be a rewind's or a fork's point (`field` names it in the message), or null
 * when it can: it must be a message of the log that compaction did not write.
 *
 * @example
 * rewindTargetProblem('to', 'evt_1', undefined) // 'to: no event "evt_1" in this session'
 */
export function rewindTargetProblem(field: string, id: string, event: RewindTarget): string | null {
  if (event === undefined) return `${field}: no event ${JSON.stringify(id)} in this session`
  if (event.type !== 'MESSAGE') return `${field}: ${JSON.stringify(id)} is a ${event.type} event, not a message`
  if (event.synthetic)
    return `${field}: ${JSON.stringify(id)} is a summary event written by compaction, not a message of the conversation`
  return null
}
