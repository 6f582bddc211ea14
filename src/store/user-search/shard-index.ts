import { WORD } from '../../core'
import { literalLimit, type Sql } from '../../sql'
import { SEARCH_PAGE_BYTES } from '../search/index-merges'
import type { ShardBatch } from './shard-types'

/** Events of gone sessions dropped from the index in one purge step. */
const PURGE_STEP = 500

/**
 * The index's pages as small as a session's (see `SEARCH_PAGE_BYTES`): FTS5 seeks through a word
 * of most events by its doclist index, a page at a time. A question whose words seldom meet in
 * one event steps the common ones to each match of the rarest: ~3× faster at 250,000 events
 * than with FTS5's 4,050 bytes (BENCHMARKS, "Round four at size"). A shard made before takes
 * them on its next write, for the segments written or merged from then on.
 */
const PAGED = `INSERT INTO words (words, rank) VALUES ('pgsz', ${SEARCH_PAGE_BYTES});`

/**
 * The schema of a search shard: the sessions it holds (each incarnation once, `gone` once it is
 * deleted, expired or erased), their events (where each is, its
 * length in words) and an FTS5 index of their words with stems that keeps no text (a hit's text
 * and snippet come from its session), with the counts a ranking needs.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sessions (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    gone INTEGER NOT NULL DEFAULT 0
  );
  CREATE UNIQUE INDEX IF NOT EXISTS sessions_incarnation ON sessions (id, created_at);
  CREATE INDEX IF NOT EXISTS sessions_gone ON sessions (key) WHERE gone = 1;
  CREATE TABLE IF NOT EXISTS docs (
    id INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    at TEXT NOT NULL,
    length INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS docs_event ON docs (session, seq);
  CREATE TABLE IF NOT EXISTS counts (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    documents INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    erased_before TEXT
  );
  INSERT OR IGNORE INTO counts (singleton, documents, tokens) VALUES (1, 0, 0);
  CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(
    text, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
  );
  ${PAGED}`

/**
 * A search shard's index of some of one user's sessions (see `SearchShard`): what their sessions
 * hand over is indexed once (a batch sent again adds nothing), a session gone is hidden at once
 * and purged a step at a time, and an erasure of everything hides every session created before it.
 *
 * @example
 * const index = new ShardIndex(sql, (work) => ctx.storage.transactionSync(work))
 * index.add({ sessionId: 'chat-1', createdAt, events: [{ seq: 1, role: 'user', at, text: 'hello' }] })
 */
export class ShardIndex {
  private ready = false
  /** Whether the index's page size is known to be set (see {@link PAGED}). */
  private paged = false

  constructor(
    private readonly sql: Sql,
    private readonly transaction: <T>(work: () => T) => T,
  ) {}

  /** Whether anything was ever indexed here (reads of an empty shard create nothing). */
  exists(): boolean {
    if (!this.ready) this.ready = this.sql.first`SELECT 1 AS found FROM sqlite_master WHERE name = 'counts'` !== null
    return this.ready
  }

  private ensure(): void {
    if (!this.exists()) this.sql.storage.exec(SCHEMA)
    else if (!this.paged && this.sql.first<{ v: number }>`SELECT v FROM words_config WHERE k = 'pgsz'`?.v !== SEARCH_PAGE_BYTES)
      this.sql.storage.exec(PAGED)
    this.ready = true
    this.paged = true
  }

  /** Indexes a session's events (each once); a gone or erased incarnation's are dropped. Answers how many were new. */
  add(batch: ShardBatch): number {
    this.ensure()
    return this.transaction(() => {
      const key = this.keyOf(batch.sessionId, batch.createdAt)
      if (key === null) return 0
      const added: { id: number; text: string }[] = []
      let tokens = 0
      for (const event of batch.events) {
        const length = event.text.match(WORD)?.length ?? 0
        this.sql.run`INSERT OR IGNORE INTO docs (session, seq, role, at, length)
          VALUES (${key}, ${event.seq}, ${event.role}, ${event.at}, ${length})`
        if (this.sql.first<{ n: number }>`SELECT changes() AS n`!.n === 0) continue
        added.push({ id: this.sql.first<{ id: number }>`SELECT last_insert_rowid() AS id`!.id, text: event.text })
        tokens += length
      }
      // Rowid -id, ascending: FTS5 writes them as one segment, newest first in its doclists.
      for (const { id, text } of added.toReversed()) this.sql.run`INSERT INTO words (rowid, text) VALUES (${-id}, ${text})`
      if (added.length > 0) this.sql.run`UPDATE counts SET documents = documents + ${added.length}, tokens = tokens + ${tokens}`
      return added.length
    })
  }

  /** The key of a session's incarnation, made when new (an older one of the same id is gone); null when it is gone or erased. */
  private keyOf(id: string, createdAt: string): number | null {
    const found = this.sql.first<{
      key: number
      gone: number
    }>`SELECT key, gone FROM sessions WHERE id = ${id} AND created_at = ${createdAt}`
    if (found) return found.gone ? null : found.key
    const erased = this.sql.first<{ before: string | null }>`SELECT erased_before AS before FROM counts`?.before
    if (erased && createdAt < erased) return null
    this.sql.run`UPDATE sessions SET gone = 1 WHERE id = ${id} AND created_at < ${createdAt}`
    this.sql.run`INSERT INTO sessions (id, created_at) VALUES (${id}, ${createdAt})`
    return this.sql.first<{ key: number }>`SELECT last_insert_rowid() AS key`!.key
  }

  /** Hides a session's incarnation (and any older one) from now on; its events are purged later. Answers whether there is anything to purge. */
  forget(id: string, createdAt: string): boolean {
    if (!this.exists()) return false
    this.sql.run`UPDATE sessions SET gone = 1 WHERE id = ${id} AND created_at <= ${createdAt}`
    return this.purgeable()
  }

  /** Hides every session created before `before` (the user erased everything), also one handed over late. */
  eraseBefore(before: string): boolean {
    if (!this.exists()) return false
    this.sql.run`UPDATE counts SET erased_before = max(coalesce(erased_before, ''), ${before})`
    this.sql.run`UPDATE sessions SET gone = 1 WHERE created_at < ${before}`
    return this.purgeable()
  }

  /** Whether a gone session's events are still to purge. */
  purgeable(): boolean {
    return (
      this.exists() &&
      this.sql.first`SELECT 1 AS found FROM sessions JOIN docs ON docs.session = sessions.key WHERE sessions.gone = 1 LIMIT 1` !==
        null
    )
  }

  /**
   * Drops a step of gone sessions' events from the index; their rows stay (an id and a time), so
   * that a hand-over of them that comes late adds nothing. Answers whether more is left.
   */
  purge(): boolean {
    if (!this.exists()) return false
    this.transaction(() => {
      const docs = this.sql.all<{ id: number; length: number; session: number }>`SELECT docs.id, docs.length, docs.session
        FROM sessions JOIN docs ON docs.session = sessions.key WHERE sessions.gone = 1 ${literalLimit(PURGE_STEP)}`
      for (const doc of docs) {
        this.sql.run`DELETE FROM words WHERE rowid = ${-doc.id}`
        this.sql.run`DELETE FROM docs WHERE id = ${doc.id}`
      }
      const tokens = docs.reduce((sum, doc) => sum + doc.length, 0)
      if (docs.length > 0) this.sql.run`UPDATE counts SET documents = documents - ${docs.length}, tokens = tokens - ${tokens}`
    })
    return this.purgeable()
  }
}
