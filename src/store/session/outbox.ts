import type { Notice } from '../../core'
import type { Sql } from '../sql'

/**
 * A session's outbox: notices written in the transaction of the change that caused them, kept
 * until the user's index object has taken them (the object's alarm hands them over), so a crash
 * between a change and its webhook loses nothing.
 */
export class Outbox {
  constructor(private readonly sql: Sql) {}

  /** Records notices (inside the caller's transaction). */
  record(notices: readonly Notice[]): void {
    for (const notice of notices) this.sql.run`INSERT INTO outbox (notice) VALUES (${JSON.stringify(notice)})`
  }

  /** The oldest notices waiting, at most `limit`, and the seq of the last of them (0: none waits). */
  batch(limit: number): { notices: Notice[]; upto: number } {
    const rows = this.sql.all<{ seq: number; notice: string }>`SELECT seq, notice FROM outbox ORDER BY seq LIMIT ${limit}`
    return { notices: rows.map((row) => JSON.parse(row.notice) as Notice), upto: rows.at(-1)?.seq ?? 0 }
  }

  /** Every notice written after the seq `after`, and the seq of the last (`after` when none). */
  after(after: number): { notices: Notice[]; upto: number } {
    const rows = this.sql.all<{ seq: number; notice: string }>`SELECT seq, notice FROM outbox WHERE seq > ${after} ORDER BY seq`
    return { notices: rows.map((row) => JSON.parse(row.notice) as Notice), upto: rows.at(-1)?.seq ?? after }
  }

  /** Drops the notices taken, up to the seq `upto`. */
  drop(upto: number): void {
    this.sql.run`DELETE FROM outbox WHERE seq <= ${upto}`
  }

  /** Whether any notice waits. */
  pending(): boolean {
    return this.sql.first`SELECT 1 AS found FROM outbox LIMIT 1` !== null
  }
}
