import {
  applyPins,
  lineageRuns,
  type PinChange,
  rewindTargetProblem,
  type SessionEvent,
  type ViewPins,
  viewPins,
} from '../../core'
import type { Sql } from '../../sql'
import type { SessionLog } from './log'

/**
 * What is pinned in a session: the ids pinned on the lineage now (the `pins` table, kept in step
 * by every write and cached here), from PINS events and messages appended pinned. A rewind folds
 * those on its new lineage again: its cost follows the pins and the rewinds walked, not the log.
 */
export class SessionPins {
  /** id → the seq of the pinned message; null until read. */
  private current: Map<string, number> | null = null
  /** The seqs of the events the newest boundary holds because of a pin, by that boundary's seq. */
  private held: { boundarySeq: number; seqs: Set<number> } | null = null

  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /** Forgets what was cached: the session's storage was deleted. */
  reset(): void {
    this.current = null
    this.held = null
  }

  /** The ids pinned on the lineage now, with their seqs. */
  pinned(): ReadonlyMap<string, number> {
    this.current ??= new Map(this.sql.all<{ id: string; seq: number }>`SELECT id, seq FROM pins`.map((row) => [row.id, row.seq]))
    return this.current
  }

  /** The seqs of the messages pinned now (what each event the API answers says in `pinned`). */
  seqs(): ReadonlySet<number> {
    return new Set(this.pinned().values())
  }

  /**
   * The pins of a view for a pass: the messages pinned now, and those the view's newest boundary
   * holds — the stored one at `boundarySeq` (0: none), or a rewind about to be written (`held`).
   */
  ofView(boundarySeq: number, held?: readonly string[]): ViewPins {
    const seqsOf = (ids: readonly string[]) => new Set(ids.flatMap((id) => this.log.placeOf(id)?.seq ?? []))
    if (held) return viewPins(this.seqs(), seqsOf(held))
    if (this.held?.boundarySeq !== boundarySeq) {
      const boundary = boundarySeq > 0 ? this.log.boundaryAtOrBefore(boundarySeq) : null
      this.held = { boundarySeq, seqs: seqsOf(boundary?.boundary.held ?? []) }
    }
    return viewPins(this.seqs(), this.held.seqs)
  }

  /**
   * Records what written events change (call it inside their write, after they are inserted):
   * messages appended pinned (`pinnedAtAppend`, by id), PINS events, and a REWIND, after which
   * the pins are those of the new lineage (ending at `version`).
   */
  record(written: readonly SessionEvent[], pinnedAtAppend: ReadonlySet<string>, version: number): void {
    if (written.some((event) => event.type === 'REWIND')) {
      for (const event of written)
        if (event.type === 'MESSAGE' && pinnedAtAppend.has(event.id)) this.markAppended(event.id, event.seq)
      if (this.everPinned()) this.refold(version)
      return
    }
    for (const event of written) {
      if (event.type === 'MESSAGE' && pinnedAtAppend.has(event.id)) {
        this.markAppended(event.id, event.seq)
        this.sql.run`INSERT OR REPLACE INTO pins (id, seq) VALUES (${event.id}, ${event.seq})`
      } else if (event.type === 'PINS') this.apply(event.pins)
    }
    this.current = null
  }

  /** Whether anything was ever pinned in this session (a rewind of one that never was has nothing to fold). */
  private everPinned(): boolean {
    return (
      this.sql.first`SELECT 1 AS found FROM pinned_appends LIMIT 1` !== null ||
      this.sql.first`SELECT 1 AS found FROM events WHERE type = 'PINS' LIMIT 1` !== null
    )
  }

  private markAppended(id: string, seq: number): void {
    this.sql.run`INSERT INTO pinned_appends (seq, id) VALUES (${seq}, ${id})`
  }

  private apply(change: PinChange): void {
    for (const id of change.unpin) this.sql.run`DELETE FROM pins WHERE id = ${id}`
    for (const id of change.pin) {
      const place = this.log.placeOf(id)
      if (place) this.sql.run`INSERT OR REPLACE INTO pins (id, seq) VALUES (${id}, ${place.seq})`
    }
  }

  /**
   * Why an id cannot be pinned or unpinned (`field` names the list), or null: it must be a
   * message of the conversation, and not a system message (the latest is always kept).
   */
  targetProblem(field: string, id: string): string | null {
    const place = this.log.placeOf(id)
    const problem = rewindTargetProblem(field, id, place ?? undefined)
    if (problem) return problem
    const [event] = this.log.range(place!.seq, place!.seq)
    if (event?.type === 'MESSAGE' && event.message.role === 'system')
      return `${field}: ${JSON.stringify(id)} is a system message: the latest one is always kept, the others are never shown`
    return null
  }

  /** The ids pinned on the lineage as of the prefix ending at `end` (a fork's point). */
  pinnedAsOf(end: number): Set<string> {
    return this.everPinned() ? this.fold(end) : new Set()
  }

  /** The pins of the lineage ending at `version`, folded again from its pinned appends and PINS events. */
  private refold(version: number): void {
    const pinned = this.fold(version)
    this.sql.run`DELETE FROM pins`
    for (const id of pinned) {
      const place = this.log.placeOf(id)
      if (place) this.sql.run`INSERT INTO pins (id, seq) VALUES (${id}, ${place.seq})`
    }
    this.current = null
  }

  /** What the pinned appends and PINS events of the lineage ending at `version` pin, folded in log order. */
  private fold(version: number): Set<string> {
    type Mark = { seq: number; change: PinChange }
    const marks: Mark[] = []
    for (const run of lineageRuns(version, this.log.rewinds.at)) {
      for (const row of this.sql.all<{ seq: number; id: string }>`SELECT seq, id FROM pinned_appends
          WHERE seq BETWEEN ${run.from} AND ${run.to}`)
        marks.push({ seq: row.seq, change: { pin: [row.id], unpin: [] } })
      for (const event of this.log.pinsBetween(run.from, run.to)) marks.push({ seq: event.seq, change: event.pins })
    }
    let pinned = new Set<string>()
    for (const mark of marks.sort((a, b) => a.seq - b.seq)) pinned = applyPins(pinned, mark.change)
    return pinned
  }
}
