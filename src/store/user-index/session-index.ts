import { Sql } from '../../sql'

/** A session as its user's index lists it. */
export interface SessionIndexEntry {
  id: string
  createdAt: string
  expiresAt: string | null
}

/** Where a page of the list starts: after this entry (newest first). */
export interface SessionIndexCursor {
  createdAt: string
  id: string
}

type Row = { id: string; created_at: string; expires_at: string | null }

/**
 * One user's sessions, in their index object's SQLite, newest first. Session objects keep it true
 * (they add themselves when created and remove themselves when deleted or expired); entries past
 * their expiry are never listed.
 */
export class SessionIndex {
  private readonly sql: Sql

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql.run`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, expires_at TEXT)`
    this.sql.run`CREATE INDEX IF NOT EXISTS newest_first ON sessions (created_at DESC, id DESC)`
    // An erasure of everything: sessions created before it are gone, whatever their objects still hold.
    this.sql
      .run`CREATE TABLE IF NOT EXISTS erasure (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), user_id TEXT NOT NULL, before TEXT NOT NULL)`
  }

  /** Erases every session created before `before` (the index no longer lists them); the newest erasure counts. */
  eraseBefore(userId: string, before: string): void {
    this.sql.run`INSERT INTO erasure (singleton, user_id, before) VALUES (1, ${userId}, ${before})
      ON CONFLICT (singleton) DO UPDATE SET before = max(before, excluded.before)`
  }

  /** The erasure in force, if any: whose, and the sessions created before when are gone. */
  erasure(): { userId: string; before: string } | null {
    const row = this.sql.first<{ user_id: string; before: string }>`SELECT user_id, before FROM erasure`
    return row ? { userId: row.user_id, before: row.before } : null
  }

  /** Sessions an erasure has left to wipe, oldest first, created after `after`: at most `limit`. */
  erased(limit: number, after = ''): SessionIndexEntry[] {
    const before = this.erasure()?.before
    if (!before) return []
    return this.sql
      .all<Row>`SELECT id, created_at, expires_at FROM sessions WHERE created_at < ${before} AND created_at > ${after}
        ORDER BY created_at LIMIT ${limit}`.map((r) => ({ id: r.id, createdAt: r.created_at, expiresAt: r.expires_at }))
  }

  /** Lists a session, or updates its entry (idempotent). */
  add(entry: SessionIndexEntry): void {
    this.sql
      .run`INSERT OR REPLACE INTO sessions (id, created_at, expires_at) VALUES (${entry.id}, ${entry.createdAt}, ${entry.expiresAt})`
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time). */
  remove(id: string, createdAt: string): void {
    this.sql.run`DELETE FROM sessions WHERE id = ${id} AND created_at = ${createdAt}`
  }

  /** One page of sessions live at `now`, newest first, after the cursor. */
  page(
    limit: number,
    cursor: SessionIndexCursor | null,
    now: string,
  ): { entries: SessionIndexEntry[]; next: SessionIndexCursor | null } {
    const after = cursor ?? { createdAt: '\uffff', id: '\uffff' }
    const erased = this.erasure()?.before ?? ''
    const rows = this.sql.all<Row>`SELECT id, created_at, expires_at FROM sessions
      WHERE (expires_at IS NULL OR expires_at > ${now}) AND created_at >= ${erased}
        AND (created_at < ${after.createdAt} OR (created_at = ${after.createdAt} AND id < ${after.id}))
      ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
    const entries = rows.slice(0, limit).map((r) => ({ id: r.id, createdAt: r.created_at, expiresAt: r.expires_at }))
    const last = entries.at(-1)
    return { entries, next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null }
  }
}
