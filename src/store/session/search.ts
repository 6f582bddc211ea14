import { type MessageEvent, type SessionEvent, searchTextOf } from '../../core'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

/** Events indexed per transaction when a log written before search existed is caught up. */
const BACKFILL_BATCH = 500

/** Characters of context a snippet keeps around a match, in tokens (FTS5's measure). */
const SNIPPET_TOKENS = 16

/** A hit of a search: the event's seq and a short excerpt around the match. */
export interface SearchRow {
  seq: number
  snippet: string
}

/**
 * Full-text search of a session's message events with SQLite FTS5 (the `search` table, rowid =
 * seq). Each event's text is indexed in its append's own transaction; a log stored before the
 * table existed is indexed on first use, a batch per transaction (`search_backfill`).
 */
export class SessionSearch {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
    private readonly transaction: <T>(work: () => T) => T,
  ) {}

  /** The catch-up of this instance: started once, joined by every later caller. */
  private catchingUp: Promise<void> | null = null

  /**
   * Catches the index up with a log written before it existed: a batch a transaction, other
   * requests served between. Started once per object instance (in the background when the
   * session is first read); a search waits for it.
   */
  caughtUp(): Promise<void> {
    this.catchingUp ??= (async () => {
      while (this.transaction(() => this.backfillStep())) await new Promise((resolve) => setTimeout(resolve, 0))
    })().catch((error: unknown) => {
      this.catchingUp = null // the next caller starts over from where the index is
      throw error
    })
    return this.catchingUp
  }

  /** Indexes events being written (call it inside the write's transaction). */
  index(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type !== 'MESSAGE') continue
      const text = searchTextOf(event.message)
      if (text !== '') this.sql.run`INSERT INTO search (rowid, text) VALUES (${event.seq}, ${text})`
    }
  }

  /** Indexes the next batch of events written before search existed; false once there are none left. */
  private backfillStep(): boolean {
    const row = this.sql.first<{ upto: number; done: number }>`SELECT upto, done FROM search_backfill`
    if (!row || row.done >= row.upto) return false
    const to = Math.min(row.done + BACKFILL_BATCH, row.upto)
    this.index([...this.log.eventRange(row.done + 1, to)] as MessageEvent[])
    this.sql.run`UPDATE search_backfill SET done = ${to}`
    return true
  }

  /**
   * The events matching an FTS5 expression (see the core's `ftsExpression`), best match first and
   * ties newest first, from `offset` on, at most `limit`; only those of `role` when given.
   */
  query(expression: string, options: { role?: string; limit: number; offset: number }): SearchRow[] {
    // Ranked first, snippets after: a snippet re-reads its text, so it is made for the page only.
    const seqs = (
      options.role === undefined
        ? this.sql.all<{ seq: number }>`SELECT rowid AS seq FROM search WHERE search MATCH ${expression}
            ORDER BY rank, rowid DESC LIMIT ${options.limit} OFFSET ${options.offset}`
        : this.sql.all<{ seq: number }>`SELECT search.rowid AS seq FROM search JOIN events ON events.seq = search.rowid
            WHERE search MATCH ${expression} AND events.role = ${options.role}
            ORDER BY search.rank, search.rowid DESC LIMIT ${options.limit} OFFSET ${options.offset}`
    ).map((row) => row.seq)
    if (seqs.length === 0) return []
    const snippets = new Map<number, string>()
    for (const row of this.sql.all<{ seq: number; snippet: string }>`SELECT rowid AS seq,
        snippet(search, 0, '', '', '…', ${SNIPPET_TOKENS}) AS snippet FROM search
        WHERE search MATCH ${expression} AND rowid IN (SELECT value FROM json_each(${JSON.stringify(seqs)}))`) {
      snippets.set(row.seq, row.snippet)
    }
    return seqs.map((seq) => ({ seq, snippet: snippets.get(seq) ?? '' }))
  }
}
