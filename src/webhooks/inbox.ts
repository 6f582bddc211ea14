import { Sql } from '../sql'
import type { Notice } from './notices'

/** How long a notice's id is remembered: longer than a session object retries handing it over. */
const REMEMBER_MS = 3 * 24 * 3600 * 1000

/**
 * The notices a user's index object has taken from its sessions, by id: a session hands its
 * outbox over until the hand-over is acknowledged, so the same notice may come twice and must
 * count once.
 */
export class NoticeInbox {
  private readonly sql: Sql

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql.run`CREATE TABLE IF NOT EXISTS received (id TEXT PRIMARY KEY, at INTEGER NOT NULL)`
    this.sql.run`CREATE INDEX IF NOT EXISTS received_at ON received (at)`
  }

  /** The notices not taken before, now recorded as taken (in the caller's transaction). */
  take(notices: readonly Notice[], now: number): Notice[] {
    const fresh = notices.filter((notice) => {
      if (this.sql.first`SELECT 1 AS found FROM received WHERE id = ${notice.id}`) return false
      this.sql.run`INSERT INTO received (id, at) VALUES (${notice.id}, ${now})`
      return true
    })
    this.sql.run`DELETE FROM received WHERE at < ${now - REMEMBER_MS}`
    return fresh
  }
}
