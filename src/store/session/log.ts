import type { Boundary, Message, MessageEvent, MessageSkeleton, Role, SessionEvent } from '../../core'

/**
 * The event log in SQLite: one row per event, bodies larger than one value's limit stored in
 * parts. Reads are by `seq` range or by id, never a scan of the whole table on the hot path.
 */

/** Characters of JSON per stored part: at most 6 UTF-8 bytes each, so a part stays under 2 MB. */
export const PART_CHARS = 256 * 1024

/** The Durable Object SQL API binds at most 100 parameters per statement. */
const MAX_PARAMS = 100

type Row = {
  seq: number
  id: string
  type: 'MESSAGE' | 'COMPACTION'
  role: Role | null
  synthetic: number
  tokens: number
  timestamp: string
  metadata: string
  body: string
  parts: number
}

type SkeletonRow = Pick<Row, 'seq' | 'id' | 'type' | 'role' | 'synthetic' | 'tokens'>

/**
 * A view entry as cached in memory: what compaction decides on, and the whole event only when it
 * is small (see ViewBodies), so a view of big events stays small.
 */
export type ViewEntry = MessageSkeleton & { seq: number; full?: MessageEvent }

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/** Cuts a string into parts of at most PART_CHARS, never between the halves of a surrogate pair. */
export function splitParts(text: string): string[] {
  const parts: string[] = []
  for (let at = 0; at < text.length; ) {
    let end = Math.min(at + PART_CHARS, text.length)
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1
    parts.push(text.slice(at, end))
    at = end
  }
  return parts.length > 0 ? parts : ['']
}

const SKELETON_COLUMNS = 'seq, id, type, role, synthetic, tokens'

export class SessionLog {
  constructor(private readonly sql: SqlStorage) {}

  /** Writes one event (the caller wraps a batch in a transaction). */
  insert(event: SessionEvent): void {
    const body = JSON.stringify(event.type === 'MESSAGE' ? event.message : event.boundary)
    const parts = splitParts(body)
    this.sql.exec(
      'INSERT INTO events (seq, id, type, role, synthetic, tokens, timestamp, metadata, body, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      event.seq,
      event.id,
      event.type,
      event.type === 'MESSAGE' ? event.message.role : null,
      event.synthetic ? 1 : 0,
      event.tokens,
      event.timestamp,
      JSON.stringify(event.metadata),
      parts[0]!,
      parts.length,
    )
    for (let part = 1; part < parts.length; part++) {
      this.sql.exec('INSERT INTO event_parts (seq, part, chunk) VALUES (?, ?, ?)', event.seq, part, parts[part]!)
    }
  }

  /** Events with `from < seq`, in order, at most `limit` of them. */
  after(from: number, limit = -1): SessionEvent[] {
    return this.events(this.sql.exec<Row>('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?', from, limit))
  }

  /** Events with `from <= seq <= to`, in order. */
  range(from: number, to: number): SessionEvent[] {
    return this.events(this.sql.exec<Row>('SELECT * FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq', from, to))
  }

  /** The events of the given seqs, in the given order (fetched by contiguous runs). */
  bySeqs(seqs: readonly number[]): SessionEvent[] {
    const sorted = [...seqs].sort((a, b) => a - b)
    const found = new Map<number, SessionEvent>()
    for (let i = 0; i < sorted.length; ) {
      let j = i
      while (j + 1 < sorted.length && sorted[j + 1]! === sorted[j]! + 1) j++
      for (const event of this.range(sorted[i]!, sorted[j]!)) found.set(event.seq, event)
      i = j + 1
    }
    return seqs.map((seq) => found.get(seq)!)
  }

  /** The stored events with these ids (absent ids are simply missing from the map). */
  byIds(ids: readonly string[]): Map<string, SessionEvent> {
    const found = new Map<string, SessionEvent>()
    for (let i = 0; i < ids.length; i += MAX_PARAMS) {
      const chunk = ids.slice(i, i + MAX_PARAMS)
      const rows = this.sql.exec<Row>(`SELECT * FROM events WHERE id IN (${chunk.map(() => '?').join(',')})`, ...chunk)
      for (const event of this.events(rows)) found.set(event.id, event)
    }
    return found
  }

  /** View entries of the events with these ids. */
  skeletonsByIds(ids: readonly string[]): Map<string, ViewEntry> {
    const found = new Map<string, ViewEntry>()
    for (let i = 0; i < ids.length; i += MAX_PARAMS) {
      const chunk = ids.slice(i, i + MAX_PARAMS)
      const rows = this.sql.exec<SkeletonRow>(
        `SELECT ${SKELETON_COLUMNS} FROM events WHERE id IN (${chunk.map(() => '?').join(',')})`,
        ...chunk,
      )
      for (const row of rows) if (row.type === 'MESSAGE') found.set(row.id, skeleton(row))
    }
    return found
  }

  /** View entries of the message events after `from`, in order. */
  skeletonsAfter(from: number): ViewEntry[] {
    const rows = this.sql.exec<SkeletonRow>(
      `SELECT ${SKELETON_COLUMNS} FROM events WHERE seq > ? AND type = 'MESSAGE' ORDER BY seq`,
      from,
    )
    return Array.from(rows, skeleton)
  }

  private events(rows: Iterable<Row>): SessionEvent[] {
    return Array.from(rows, (row) => this.event(row))
  }

  private event(row: Row): SessionEvent {
    let body = row.body
    if (row.parts > 1) {
      const rest = this.sql.exec<{ chunk: string }>('SELECT chunk FROM event_parts WHERE seq = ? ORDER BY part', row.seq)
      body += Array.from(rest, (r) => r.chunk).join('')
    }
    const metadata = JSON.parse(row.metadata) as Record<string, unknown>
    // Object literals of one fixed shape per type: see atSeq in the core.
    return row.type === 'MESSAGE'
      ? {
          type: 'MESSAGE',
          id: row.id,
          seq: row.seq,
          timestamp: row.timestamp,
          metadata,
          synthetic: row.synthetic === 1,
          tokens: row.tokens,
          message: JSON.parse(body) as Message,
        }
      : {
          type: 'COMPACTION',
          id: row.id,
          seq: row.seq,
          timestamp: row.timestamp,
          metadata,
          synthetic: false,
          tokens: 0,
          boundary: JSON.parse(body) as Boundary,
        }
  }
}

const skeleton = (row: SkeletonRow): ViewEntry => ({
  type: 'MESSAGE',
  id: row.id,
  seq: row.seq,
  tokens: row.tokens,
  synthetic: row.synthetic === 1,
  message: { role: row.role! },
})
