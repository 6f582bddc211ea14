import { folded, WORD } from '../../core'
import { fragment, Sql } from '../../sql'

/** A session as its user's index lists it: where it is, and what a listing filters and orders by. */
export interface SessionIndexEntry {
  id: string
  createdAt: string
  expiresAt: string | null
  /** Its last append (its creation while it has none). */
  updatedAt?: string
  title?: string | null
  /** The start of its first user message. */
  firstMessage?: string | null
  /** Its metadata as JSON (a value of unknown shape would not cross RPC typed). */
  metadata?: string
  /** The session it was forked from (null: none). */
  forkedFrom?: string | null
}

/** Where a page of the list starts: after this entry, in the list's order. */
export interface SessionIndexCursor {
  at: string
  id: string
}

/** What a page of the list is filtered and ordered by (`GET /v1/sessions`). */
export interface SessionFilters {
  /** Every word in the title or the first message (case and accents folded; a word may start a longer one). */
  q?: string
  /** Each key's value, as text (a string as it is, a number or boolean as JSON writes it). */
  metadata?: [string, string][]
  updatedAfter?: string
  updatedBefore?: string
  forkedFrom?: string
  order?: 'created' | 'updated'
}

type Row = { id: string; created_at: string; expires_at: string | null; at: string }

/**
 * One user's sessions, in their index object's SQLite, newest first or most recently updated
 * first. Session objects keep it true: they add themselves when created, update their entry after
 * their writes (their last append, title, metadata: from their alarm, or at once for a patch) and
 * remove themselves when deleted or expired; entries past their expiry are never listed.
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
    this.listingColumns()
  }

  /**
   * What a listing filters and orders by, added to an index made before: a row's update time its
   * creation until its session lists itself again, its words (title and first message, folded).
   */
  private listingColumns(): void {
    if (this.sql.first`SELECT 1 AS found FROM pragma_table_info('sessions') WHERE name = 'updated_at'`) return
    this.sql.storage.exec(`ALTER TABLE sessions ADD COLUMN updated_at TEXT;
      ALTER TABLE sessions ADD COLUMN title TEXT;
      ALTER TABLE sessions ADD COLUMN first_message TEXT;
      ALTER TABLE sessions ADD COLUMN words TEXT NOT NULL DEFAULT '';
      ALTER TABLE sessions ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
      ALTER TABLE sessions ADD COLUMN forked_from TEXT;
      UPDATE sessions SET updated_at = created_at;
      CREATE INDEX IF NOT EXISTS recently_updated ON sessions (updated_at DESC, id DESC);`)
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
    const title = entry.title ?? null
    const firstMessage = entry.firstMessage ?? null
    // Padded with spaces, so that a word is found at a word's start (` word`).
    const words = ` ${[title, firstMessage]
      .flatMap((text) => (text ?? '').match(WORD) ?? [])
      .map(folded)
      .join(' ')} `
    this.sql
      .run`INSERT OR REPLACE INTO sessions (id, created_at, expires_at, updated_at, title, first_message, words, metadata, forked_from)
      VALUES (${entry.id}, ${entry.createdAt}, ${entry.expiresAt}, ${entry.updatedAt ?? entry.createdAt}, ${title}, ${firstMessage},
        ${words}, ${entry.metadata ?? '{}'}, ${entry.forkedFrom ?? null})`
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time). */
  remove(id: string, createdAt: string): void {
    this.sql.run`DELETE FROM sessions WHERE id = ${id} AND created_at = ${createdAt}`
  }

  /**
   * One page of sessions live at `now` that pass the filters, newest first (or most recently
   * updated first), after the cursor. Its cost follows the user's sessions, never their logs.
   */
  page(
    limit: number,
    cursor: SessionIndexCursor | null,
    now: string,
    filters: SessionFilters = {},
  ): { entries: SessionIndexEntry[]; next: SessionIndexCursor | null } {
    const after = cursor ?? { at: '\uffff', id: '\uffff' }
    const erased = this.erasure()?.before ?? ''
    const at = fragment(filters.order === 'updated' ? 'updated_at' : 'created_at')
    const words = JSON.stringify((filters.q?.match(WORD) ?? []).map(folded))
    const metadata = JSON.stringify(filters.metadata ?? [])
    const rows = this.sql.all<Row>`SELECT id, created_at, expires_at, ${at} AS at FROM sessions
      WHERE (expires_at IS NULL OR expires_at > ${now}) AND created_at >= ${erased}
        AND (${at} < ${after.at} OR (${at} = ${after.at} AND id < ${after.id}))
        AND updated_at > ${filters.updatedAfter ?? ''} AND updated_at < ${filters.updatedBefore ?? '\uffff'}
        AND (${filters.forkedFrom ?? null} IS NULL OR forked_from = ${filters.forkedFrom ?? null})
        AND NOT EXISTS (SELECT 1 FROM json_each(${words}) AS word WHERE instr(sessions.words, ' ' || word.value) = 0)
        AND NOT EXISTS (SELECT 1 FROM json_each(${metadata}) AS pair
          WHERE ${METADATA_TEXT} IS NOT json_extract(pair.value, '$[1]'))
      ORDER BY ${at} DESC, id DESC LIMIT ${limit + 1}`
    const entries = rows.slice(0, limit).map((r) => ({ id: r.id, createdAt: r.created_at, expiresAt: r.expires_at }))
    const last = rows[Math.min(limit, rows.length) - 1]
    return { entries, next: rows.length > limit && last ? { at: last.at, id: last.id } : null }
  }
}

/**
 * A metadata value as text, at the key the pair names (SQL over `sessions.metadata` and the pair
 * `[key, value]`): a string as it is, a number, boolean or null as JSON writes them.
 */
const METADATA_TEXT = fragment(`(SELECT CASE json_type(sessions.metadata, path)
    WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'
    WHEN 'text' THEN json_extract(sessions.metadata, path)
    ELSE CAST(json_extract(sessions.metadata, path) AS TEXT) END
  FROM (SELECT '$."' || json_extract(pair.value, '$[0]') || '"' AS path))`)
