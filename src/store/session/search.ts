import { LIMITS } from '../../contract/limits'
import type { SearchPosition } from '../../contract/schemas'
import { type SessionEvent, searchTextOf } from '../../core'
import { log } from '../../log'
import type { Sql } from '../sql'
import { indexedText } from './fts-expression'

/**
 * Appends whose segments one merge waits for. FTS5 merges a level only once it holds 4 segments
 * (its `usermerge`), so a merge after every append mostly had nothing to do, and each merge
 * statement is a row written (billed) whatever its work.
 */
const MERGE_EVERY = 8
/** Pages of segment merging per append merged (FTS5's `merge` command): bounded work for each. */
const MERGE_PAGES_PER_APPEND = 4
/** A merge runs this long after the append that scheduled it: in idle time when turns are apart. */
const MERGE_DELAY_MS = 100

/** Characters of context a snippet keeps around a match, in tokens (FTS5's measure). */
const SNIPPET_TOKENS = 16

/**
 * Full-text search of a session's message events with SQLite FTS5 (the `search` table, rowid =
 * -seq: FTS5 walks its doclists in rowid order, so the newest matches come first). Each event's
 * text is indexed in its append's own transaction.
 */
export class SessionSearch {
  constructor(
    private readonly sql: Sql,
    private readonly transaction: <T>(work: () => T) => T,
  ) {}

  /** Appends indexed since the last merge was scheduled. */
  private unmerged = 0

  /** Indexes events being written (call it inside the write's transaction); their segments are merged later. */
  index(events: readonly SessionEvent[]): void {
    let indexed = false
    for (const event of events) {
      if (event.type !== 'MESSAGE') continue
      const text = indexedText(searchTextOf(event.message))
      if (text === '') continue
      this.sql.run`INSERT INTO search (rowid, text) VALUES (${-event.seq}, ${text})`
      indexed = true
    }
    if (indexed && ++this.unmerged >= MERGE_EVERY) this.mergeSoon()
  }

  /**
   * Merges the segments of the last appends a little after them (each append adds one; FTS5's own
   * merging inside the append is off, migration v7): bounded work, off the request's path. Those
   * an instance leaves unmerged when it ends are merged with a later instance's.
   */
  private mergeSoon(): void {
    const pages = this.unmerged * MERGE_PAGES_PER_APPEND
    this.unmerged = 0
    setTimeout(() => {
      try {
        this.transaction(() => this.sql.run`INSERT INTO search (search, rank) VALUES ('merge', ${pages})`)
      } catch (error) {
        log.warn('merging the search index failed; a later append tries again', { error: String(error) })
      }
    }, MERGE_DELAY_MS)
  }

  /**
   * The events matching an FTS5 expression (see `./fts-expression`), in ranked order from
   * `from` on, each with its position (a cursor's content); only those of `role` when given and
   * with a seq in [`atLeast`, `below`). Ranked a window at a time (`LIMITS.searchRankWindow`
   * newest matches, best first and ties newest first, then the window below), read as asked for.
   */
  *ranked(
    expression: string,
    options: { role?: string; from: SearchPosition; atLeast?: number; below?: number },
  ): Generator<{ seq: number; at: SearchPosition }> {
    let { below, offset } = options.from
    if (options.below !== undefined) below = Math.min(below ?? options.below, options.below)
    for (;;) {
      const seqs = this.window(expression, options.role, below ?? Number.MAX_SAFE_INTEGER, options.atLeast ?? 0)
      for (let i = offset; i < seqs.length; i++) yield { seq: seqs[i]!, at: { below, offset: i } }
      if (seqs.length < LIMITS.searchRankWindow) return
      below = Math.min(...seqs)
      offset = 0
    }
  }

  /** The newest window of matches with a seq in [atLeast, below), ranked. */
  private window(expression: string, role: string | undefined, below: number, atLeast: number): number[] {
    const size = LIMITS.searchRankWindow
    // Newest first is rowid order (rowid = -seq): FTS5 walks its doclists forward; only the window is ranked.
    const [from, to] = [-below, -atLeast]
    const rows =
      role === undefined
        ? this.sql.all<{ seq: number }>`SELECT seq FROM (SELECT -rowid AS seq, rank FROM search
            WHERE search MATCH ${expression} AND rowid > ${from} AND rowid <= ${to}
            ORDER BY rowid LIMIT ${size}) ORDER BY rank, seq DESC`
        : this.sql.all<{ seq: number }>`SELECT seq FROM (SELECT -search.rowid AS seq, search.rank AS rank
            FROM search JOIN events ON events.seq = -search.rowid
            WHERE search MATCH ${expression} AND search.rowid > ${from} AND search.rowid <= ${to}
              AND events.role = ${role}
            ORDER BY search.rowid LIMIT ${size}) ORDER BY rank, seq DESC`
    return rows.map((row) => row.seq)
  }

  /** A snippet around the match of each of `seqs` (made for a page only: it re-reads the text). */
  snippets(expression: string, seqs: readonly number[]): Map<number, string> {
    const snippets = new Map<number, string>()
    if (seqs.length === 0) return snippets
    for (const row of this.sql.all<{ seq: number; snippet: string }>`SELECT -rowid AS seq,
        snippet(search, 0, '', '', '…', ${SNIPPET_TOKENS}) AS snippet FROM search
        WHERE search MATCH ${expression} AND rowid IN (SELECT -value FROM json_each(${JSON.stringify(seqs)}))`) {
      snippets.set(row.seq, row.snippet)
    }
    return snippets
  }
}
