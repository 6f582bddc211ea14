import {
  type Boundary,
  type BoundaryEvent,
  compactionEventAt,
  type Message,
  type Metadata,
  messageEventAt,
  type PinChange,
  type PinsEvent,
  pinsEventAt,
  prefixEnd,
  type Rewind,
  type Role,
  rememberedSteps,
  rewindEventAt,
  type SessionEvent,
  type ViewEntry,
} from '../../core'
import { fragment, IDS_PER_STATEMENT, inChunks, type Sql } from '../../sql'
import { bodyOf, PART_CHARS, splitParts } from './event-body'
import { seqRuns } from './seq-runs'

/**
 * The event log in SQLite: one row per event, bodies larger than one value's limit stored in
 * parts. Reads are by `seq` range or by id, never a scan of the whole table on the hot path.
 */

/** An events row as stored (`SELECT *`). */
export type EventRow = {
  seq: number
  id: string
  type: SessionEvent['type']
  role: Role | null
  synthetic: number
  tokens: number
  timestamp: string
  metadata: string
  body: string
  parts: number
}

type EntryRow = Pick<EventRow, 'seq' | 'id' | 'role' | 'synthetic' | 'tokens'> & { inline: number | null }

/**
 * A range is walked by one statement whose rows are taken one at a time (`Sql.each`): only the
 * rows a reader takes are read and billed, and one row's body (at most PART_CHARS) is held at a
 * time, whatever the events.
 */

/**
 * The rows from `from` to `to`, as a statement's LIMIT: SQLite then stops at the range's last row
 * instead of stepping past it to find the range ended (a row more read, and billed).
 */
const rowsIn = (from: number, to: number) => Math.max(0, to - from + 1)

/** Rows per statement when only the small columns are read (a view being loaded). */
const ENTRY_BATCH = 4096

export type { ViewEntry }

// Only a system message's metadata is read, for whether it is inline: other rows pay nothing.
const ENTRY_COLUMNS = fragment(
  "seq, id, role, synthetic, tokens, CASE WHEN role = 'system' THEN json_extract(metadata, '$.inline') END AS inline",
)

const entryOf = (row: EntryRow): ViewEntry => ({
  seq: row.seq,
  id: row.id,
  tokens: row.tokens,
  role: row.role!,
  synthetic: row.synthetic === 1,
  inline: row.inline === 1,
})

export class SessionLog {
  /**
   * The newest REWIND at or before a seq, and where its point's prefix ends: what a walk of the
   * lineage steps by (`rewinds.at`), each REWIND read once (see the core's `rememberedSteps`).
   */
  readonly rewinds = rememberedSteps((seq) => {
    const [row] = this.sql.all<EventRow>`SELECT * FROM events WHERE type = 'REWIND' AND seq <= ${seq} ORDER BY seq DESC LIMIT 1`
    if (!row) return null
    const { rewind } = JSON.parse(this.body(row)) as { rewind: Rewind }
    return { seq: row.seq, end: prefixEnd(rewind, (id) => this.placeOf(id)!.seq) }
  })

  constructor(private readonly sql: Sql) {}

  /** Writes one event, with its turn step's column when it has one (the caller wraps a batch in a transaction). */
  insert(event: SessionEvent, step: string | null = null): void {
    const parts = splitParts(JSON.stringify(bodyOf(event)))
    const role = event.type === 'MESSAGE' ? event.message.role : null
    this.sql.run`INSERT INTO events (seq, id, type, role, synthetic, tokens, timestamp, metadata, body, parts, step)
      VALUES (${event.seq}, ${event.id}, ${event.type}, ${role}, ${event.synthetic ? 1 : 0}, ${event.tokens},
        ${event.timestamp}, ${JSON.stringify(event.metadata)}, ${parts[0]!}, ${parts.length}, ${step})`
    for (let part = 1; part < parts.length; part++) {
      this.sql.run`INSERT INTO event_parts (seq, part, chunk) VALUES (${event.seq}, ${part}, ${parts[part]!})`
    }
    if (event.type === 'REWIND') this.rewinds.rewound(event.seq)
  }

  /** Events with `from < seq`, in order, at most `limit` of them (-1: no limit). */
  after(from: number, limit = -1): SessionEvent[] {
    return this.events(this.sql.all<EventRow>`SELECT * FROM events WHERE seq > ${from} ORDER BY seq LIMIT ${limit}`)
  }

  /** The message events from `from` to before `seq` that a client was shown (not system, not synthetic), newest first, at most `limit`. */
  shownBefore(seq: number, limit: number, from = 1): SessionEvent[] {
    return this.events(this.sql.all<EventRow>`SELECT * FROM events
      WHERE seq < ${seq} AND seq >= ${from} AND type = 'MESSAGE' AND synthetic = 0
        AND (role != 'system' OR json_extract(metadata, '$.inline') = 1)
      ORDER BY seq DESC LIMIT ${limit}`)
  }

  /** The message events from `from` to `to` (both included) that a client was shown, oldest first, at most `limit`. */
  shownFrom(from: number, to: number, limit: number): SessionEvent[] {
    return this.events(this.sql.all<EventRow>`SELECT * FROM events
      WHERE seq >= ${from} AND seq <= ${to} AND type = 'MESSAGE' AND synthetic = 0
        AND (role != 'system' OR json_extract(metadata, '$.inline') = 1)
      ORDER BY seq LIMIT ${limit}`)
  }

  /** The COMPACTION events before `seq`, newest first, at most `limit` (read through their own index). */
  boundariesBefore(seq: number, limit: number): SessionEvent[] {
    return this.events(this.sql.all<EventRow>`SELECT * FROM events
      WHERE type = 'COMPACTION' AND seq < ${seq} ORDER BY seq DESC LIMIT ${limit}`)
  }

  /** The newest boundary (COMPACTION or REWIND) at or before `seq`, if any: two rows, read through the boundaries' own indexes. */
  boundaryAtOrBefore(seq: number): BoundaryEvent | null {
    const [compaction] = this.sql
      .all<EventRow>`SELECT * FROM events WHERE type = 'COMPACTION' AND seq <= ${seq} ORDER BY seq DESC LIMIT 1`
    const [rewind] = this.sql
      .all<EventRow>`SELECT * FROM events WHERE type = 'REWIND' AND seq <= ${seq} ORDER BY seq DESC LIMIT 1`
    const newest = (compaction?.seq ?? 0) > (rewind?.seq ?? 0) ? compaction : rewind
    return newest ? (this.event(newest) as BoundaryEvent) : null
  }

  /** The PINS events with `from <= seq <= to`, in order (read through their own index). */
  pinsBetween(from: number, to: number): PinsEvent[] {
    return this.events(
      this.sql.all<EventRow>`SELECT * FROM events WHERE type = 'PINS' AND seq BETWEEN ${from} AND ${to} ORDER BY seq`,
    ) as PinsEvent[]
  }

  /** An event's place and kind by id (null: no such event). */
  placeOf(id: string): { seq: number; type: SessionEvent['type']; synthetic: boolean } | null {
    const [row] = this.sql.all<
      Pick<EventRow, 'seq' | 'type' | 'synthetic'>
    >`SELECT seq, type, synthetic FROM events WHERE id = ${id}`
    return row ? { seq: row.seq, type: row.type, synthetic: row.synthetic === 1 } : null
  }

  /** The first or last message event with `from <= seq <= to`, by id and seq (null: none). */
  messageAt(from: number, to: number, which: 'first' | 'last'): { id: string; seq: number } | null {
    const [row] =
      which === 'first'
        ? this.sql.all<{ id: string; seq: number }>`SELECT id, seq FROM events
            WHERE seq BETWEEN ${from} AND ${to} AND type = 'MESSAGE' ORDER BY seq LIMIT 1`
        : this.sql.all<{ id: string; seq: number }>`SELECT id, seq FROM events
            WHERE seq BETWEEN ${from} AND ${to} AND type = 'MESSAGE' ORDER BY seq DESC LIMIT 1`
    return row ?? null
  }

  /** How many message events there are with `from <= seq <= to`. */
  messagesIn(from: number, to: number): number {
    return this.sql.first<{ n: number }>`SELECT COUNT(*) AS n FROM events
      WHERE seq BETWEEN ${from} AND ${to} AND type = 'MESSAGE'`!.n
  }

  /** Events with `from <= seq <= to`, in order. */
  range(from: number, to: number): SessionEvent[] {
    return this.events(this.sql.all<EventRow>`SELECT * FROM events WHERE seq BETWEEN ${from} AND ${to}
      ORDER BY seq LIMIT ${rowsIn(from, to)}`)
  }

  /**
   * The events with `from <= seq <= to` as JSON text, in order, read a row at a time as taken and
   * written from the stored columns without parsing them: the same text as `JSON.stringify` of
   * the event. Throws when a seq of the range is missing (the session was deleted meanwhile).
   */
  *jsonRange(from: number, to: number): Generator<{ seq: number; json: string; bodyChars: number; event: () => SessionEvent }> {
    for (const row of this.walk(from, to)) {
      const bodyChars = row.body.length + (row.parts - 1) * PART_CHARS
      yield { seq: row.seq, json: this.json(row), bodyChars, event: () => this.event(row) }
    }
  }

  /** The events with `from <= seq <= to`, in order, read a row at a time as taken. */
  *eventRange(from: number, to: number): Generator<SessionEvent> {
    for (const row of this.walk(from, to)) yield this.event(row)
  }

  /** The stored events with these ids (absent ids are simply missing from the map). */
  byIds(ids: readonly string[]): Map<string, SessionEvent> {
    const found = new Map<string, SessionEvent>()
    for (const chunk of inChunks(ids, IDS_PER_STATEMENT)) {
      for (const event of this.events(
        this.sql.all<EventRow>`SELECT * FROM events WHERE id IN (SELECT value FROM json_each(${JSON.stringify(chunk)}))`,
      ))
        found.set(event.id, event)
    }
    return found
  }

  /** The view entries of the message events with these ids. */
  entriesByIds(ids: readonly string[]): Map<string, ViewEntry> {
    const found = new Map<string, ViewEntry>()
    for (const chunk of inChunks(ids, IDS_PER_STATEMENT)) {
      for (const row of this.sql.all<EntryRow>`SELECT ${ENTRY_COLUMNS} FROM events
          WHERE id IN (SELECT value FROM json_each(${JSON.stringify(chunk)})) AND type = 'MESSAGE'`) {
        found.set(row.id, entryOf(row))
      }
    }
    return found
  }

  /** The view entries of the message events after `from` (up to `to`), in order, read a few thousand rows at a time. */
  *entriesAfter(from: number, to = Number.MAX_SAFE_INTEGER): Generator<ViewEntry> {
    for (let at = from; ; ) {
      const rows = this.sql.all<EntryRow>`SELECT ${ENTRY_COLUMNS} FROM events
        WHERE seq > ${at} AND seq <= ${to} AND type = 'MESSAGE' ORDER BY seq LIMIT ${ENTRY_BATCH}`
      for (const row of rows) yield entryOf(row)
      if (rows.length < ENTRY_BATCH) return
      at = rows.at(-1)!.seq
    }
  }

  /** The view entries of the message events of these seqs, in their order (read by runs of consecutive seqs). */
  entriesOf(seqs: ArrayLike<number>): ViewEntry[] {
    const entries: ViewEntry[] = []
    for (const run of seqRuns(seqs)) {
      const rows = this.sql
        .all<EntryRow>`SELECT ${ENTRY_COLUMNS} FROM events WHERE seq BETWEEN ${run.from} AND ${run.to} ORDER BY seq`
      if (rows.length !== run.to - run.from + 1) throw new Error(`events ${run.from}–${run.to} are missing`)
      for (const row of rows) entries.push(entryOf(row))
    }
    return entries
  }

  private *walk(from: number, to: number): Generator<EventRow> {
    let at = from
    for (const row of this.sql.each<EventRow>`SELECT * FROM events WHERE seq BETWEEN ${from} AND ${to}
        ORDER BY seq LIMIT ${rowsIn(from, to)}`) {
      if (row.seq !== at) break
      yield row
      at += 1
    }
    if (at <= to) throw new Error(`event ${at} is missing: the session was deleted while it was read`)
  }

  private body(row: EventRow): string {
    if (row.parts <= 1) return row.body
    const rest = this.sql.all<{ chunk: string }>`SELECT chunk FROM event_parts WHERE seq = ${row.seq} ORDER BY part`
    return row.body + rest.map((r) => r.chunk).join('')
  }

  /** An event's JSON from its row: the text `JSON.stringify` gives the event (see the core's `messageEventAt`). */
  json(row: EventRow): string {
    const head = `{"type":"${row.type}","id":${JSON.stringify(row.id)},"seq":${row.seq},"timestamp":${JSON.stringify(row.timestamp)},"metadata":${row.metadata}`
    switch (row.type) {
      case 'MESSAGE':
        return `${head},"synthetic":${row.synthetic === 1},"tokens":${row.tokens},"message":${this.body(row)}}`
      case 'COMPACTION':
        return `${head},"synthetic":false,"tokens":0,"boundary":${this.body(row)}}`
      case 'REWIND':
      case 'PINS':
        // The body is `{"boundary":…,"rewind":…}` or `{"pins":…}`: its members are the event's last ones.
        return `${head},"synthetic":false,"tokens":0,${this.body(row).slice(1)}`
    }
  }

  private events(rows: readonly EventRow[]): SessionEvent[] {
    return rows.map((row) => this.event(row))
  }

  private event(row: EventRow): SessionEvent {
    const body: unknown = JSON.parse(this.body(row))
    const metadata = JSON.parse(row.metadata) as Metadata
    const { id, seq, timestamp, tokens } = row
    switch (row.type) {
      case 'MESSAGE':
        return messageEventAt(id, seq, timestamp, metadata, row.synthetic === 1, tokens, body as Message)
      case 'COMPACTION':
        return compactionEventAt(id, seq, timestamp, metadata, body as Boundary)
      case 'REWIND': {
        const { boundary, rewind } = body as { boundary: Boundary; rewind: Rewind }
        return rewindEventAt(id, seq, timestamp, metadata, boundary, rewind)
      }
      case 'PINS':
        return pinsEventAt(id, seq, timestamp, metadata, (body as { pins: PinChange }).pins)
    }
  }
}
