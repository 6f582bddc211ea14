import type { Sql } from '../../sql'
import type { Notice } from '../../webhooks'
import { type SessionRecord, type SessionRowCache, writeRecord } from './session-row'

/** Notices kept in the session row while they wait: a turn's costs no row of its own. */
const IN_ROW = 16

/** What a look at the outbox took: the table's notices up to a seq, and the row's by id. */
export interface OutboxMark {
  upto: number
  inRow: ReadonlySet<string>
}

/**
 * A session's outbox: notices written in the transaction of the change that caused them, kept
 * until the user's index object has taken them (the object's alarm hands them over), so a crash
 * between a change and its webhook loses nothing. The few that wait between two hand-overs ride
 * in the session row, which every write writes anyway; more than {@link IN_ROW} (the user's index
 * unreachable for a while) go to the `outbox` table.
 */
export class Outbox {
  constructor(
    private readonly sql: Sql,
    private readonly row: SessionRowCache,
  ) {}

  /** The notices the row written after `record` holds, `notices` added (call it inside the write's transaction). */
  place(record: SessionRecord, notices: readonly Notice[]): Notice[] {
    // The row as stored holds what waits, whatever copy of it the write was given.
    const stored = this.row.stored()
    const held = stored?.createdAt === record.createdAt ? stored.notices : record.notices
    if (notices.length === 0) return held
    const waiting = [...held, ...notices]
    if (waiting.length <= IN_ROW) return waiting
    for (const notice of waiting) this.sql.run`INSERT INTO outbox (notice) VALUES (${JSON.stringify(notice)})`
    return []
  }

  /** The waiting notices (the row's, then at most `limit` of the table's, oldest first), and what to drop once taken. */
  batch(limit: number, after: OutboxMark = { upto: 0, inRow: new Set() }): { notices: Notice[]; mark: OutboxMark } {
    const inRow = (this.row.stored()?.notices ?? []).filter((notice) => !after.inRow.has(notice.id))
    const rows = this.sql.all<{ seq: number; notice: string }>`SELECT seq, notice FROM outbox WHERE seq > ${after.upto}
      ORDER BY seq LIMIT ${limit}`
    return {
      notices: [...inRow, ...rows.map((row) => JSON.parse(row.notice) as Notice)],
      mark: { upto: rows.at(-1)?.seq ?? after.upto, inRow: new Set([...after.inRow, ...inRow.map((notice) => notice.id)]) },
    }
  }

  /** Drops what a batch of `owner`'s outbox took: its table rows, and its notices from the row (written again only then). */
  drop(owner: SessionRecord, mark: OutboxMark): void {
    const record = this.row.stored()
    // Deleted meanwhile (and maybe made anew: its seqs start again at 1): nothing of this is left.
    if (record?.createdAt !== owner.createdAt) return
    if (mark.upto > 0) this.sql.run`DELETE FROM outbox WHERE seq <= ${mark.upto}`
    if (!record.notices.some((notice) => mark.inRow.has(notice.id))) return
    const next = { ...record, notices: record.notices.filter((notice) => !mark.inRow.has(notice.id)) }
    writeRecord(this.sql, next)
    this.row.set(next)
  }

  /** Whether any notice waits. */
  pending(): boolean {
    return (this.row.stored()?.notices.length ?? 0) > 0 || this.sql.first`SELECT 1 AS found FROM outbox LIMIT 1` !== null
  }
}
