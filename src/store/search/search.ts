import { SIZE_LIMITS } from '../../contract/limits'
import type { SearchPosition } from '../../contract/schemas'
import { type DocumentText, MARK_CLOSE, MARK_OPEN, type QueryTerm, rankWindow, type SessionEvent, searchTextOf } from '../../core'
import { log } from '../../log'
import { fragment, literalLimit, type Sql } from '../../sql'
import type { EventRow } from '../log/log'
import { indexedText } from './fts-expression'
import { SearchTables } from './search-tables'

/**
 * The index's page size in bytes (FTS5's `pgsz`, set by migration v14; 4050 before). FTS5 writes
 * a doclist index (a skip list) only for a word whose doclist spans 4 pages or more in a segment:
 * at 4050 bytes a segment of a few thousand events has none for a word of every event, and a
 * phrase holding that word steps through all of it whenever the match lies beyond it — the
 * newest, not yet merged segments lie before every older match (rowids are -seq). At 500 bytes a
 * thousand events get one: an old phrase's search ~0.1 ms instead of 0.05–0.25 (BENCHMARKS,
 * issue 31).
 */
export const SEARCH_PAGE_BYTES = 500
const pagesOf = (bytes: number) => Math.ceil(bytes / SEARCH_PAGE_BYTES)

/**
 * Appends whose segments one merge waits for: each merge statement is a row written (billed)
 * whatever its work. FTS5 merges a level once it holds 2 segments (its `usermerge`, migration
 * v14; 4 before): every segment is a lookup for every word of every search, and at rest a level
 * keeps one segment, not three — a search ~30% faster for ~60% more merging, off the request's path.
 */
const MERGE_EVERY = 8
/**
 * Merging owed for an append, and for each event it indexed (in bytes of pages, FTS5's measure
 * of a merge's work): merging follows what was indexed, so the index keeps a few segments a level
 * however large the appends (each segment is a lookup for every word of every search).
 */
const MERGE_PAGES_PER_APPEND = pagesOf(16 * 1024)
const MERGE_BYTES_PER_EVENT = 400
/** The most pages one merge statement is given (~1 MB): what is owed beyond goes on in the chain. */
const MERGE_PAGES_MOST = pagesOf(1024 * 1024)
/** Pages a merge statement goes on with when the one before used all it was given (an index left unmerged). */
const MERGE_PAGES_AFTER = pagesOf(128 * 1024)
/** A merge runs this long after the append that scheduled it: in idle time when turns are apart. */
const MERGE_DELAY_MS = 100

/** Characters of context a snippet keeps around a match, in tokens (FTS5's measure). */
const SNIPPET_TOKENS = 16

/**
 * The longest text a window is ranked from (see the core's `rankWindow`): marking a match's text
 * costs its length, so a window holding a longer one is ranked by FTS5's `rank` instead (its
 * cost follows the number of matches in the log, not their length).
 */
const RANKED_CHARS = 2000

/** What a page shows of a hit: a snippet around its match, and its event's row. */
export interface PageHit {
  snippet: string
  row: EventRow
}

/**
 * Whether a text's matches are marked for ranking in code (SQL over the column `text`, a
 * constant): short enough, and holding neither mark itself, so that no text can pass for marks.
 */
const markable = (column: string) => {
  const lacks = (mark: string) => `instr(${column}, char(${mark.charCodeAt(0)})) = 0`
  return fragment(`length(${column}) <= ${RANKED_CHARS} AND ${lacks(MARK_OPEN)} AND ${lacks(MARK_CLOSE)}`)
}

/** A search: its FTS5 expression (see `./fts-expression`) and the terms it was made from. */
export interface SearchExpression {
  expression: string
  terms: QueryTerm[]
}

/**
 * Full-text search of a session's message events with SQLite FTS5 (the `search` table, rowid =
 * -seq: FTS5 walks its doclists in rowid order, so the newest matches come first; words by their
 * stems, FTS5's porter tokenizer; see {@link SearchTables} for the index made anew). Each event's
 * text is indexed in its append's own transaction.
 */
export class SessionSearch {
  /** The tables searched and written (the old index while the new one is filled). */
  readonly tables: SearchTables

  constructor(
    private readonly sql: Sql,
    private readonly transaction: <T>(work: () => T) => T,
    events: (from: number, to: number) => SessionEvent[],
    /** A stored text/plain document's text, for the index made anew from the log (see {@link SearchTables}). */
    storedText: DocumentText = () => null,
  ) {
    this.tables = new SearchTables(sql, transaction, events, storedText, (count) => this.owe(count))
  }

  /** Appends indexed since the last merge was scheduled, and the pages of merging they owe. */
  private unmerged = 0
  private owed = 0
  /** Whether merges are scheduled; whether this instance has scheduled any yet. */
  private merging = false
  private mergedOnce = false

  /**
   * Indexes events being written (call it inside the write's transaction); their segments are
   * merged later. `documentText`: a text/plain document's text, found by it too.
   */
  index(events: readonly SessionEvent[], documentText: DocumentText = () => null): void {
    let indexed = 0
    const tables = this.tables.written()
    // Newest first: FTS5 writes its pending terms out as a new segment whenever a rowid is not
    // above the one before it in the transaction, and rowids are -seq — in log order, every event
    // of an append (an import's thousands) would be a segment of its own, each a lookup for every search.
    for (const event of events.toReversed()) {
      if (event.type !== 'MESSAGE') continue
      const text = indexedText(searchTextOf(event.message, documentText))
      if (text === '') continue
      for (const table of tables) this.sql.run`INSERT INTO ${table} (rowid, text) VALUES (${-event.seq}, ${text})`
      indexed++
    }
    if (indexed > 0) this.owe(indexed)
  }

  /** Forgets what it knew of the tables: the storage was wiped. */
  reset = (): void => this.tables.reset()

  /** The merging owed for an append of `indexed` events (or a rebuild step's). */
  private owe(indexed: number): void {
    this.owed += MERGE_PAGES_PER_APPEND + pagesOf(indexed * MERGE_BYTES_PER_EVENT)
    if (++this.unmerged >= MERGE_EVERY) this.mergeSoon()
  }

  /** Merges what an earlier instance left unmerged (once an instance: a search's first call). */
  keepMerged(): void {
    if (!this.mergedOnce) this.mergeSoon()
  }

  /**
   * Merges the index's segments a little after the appends that made them (each append adds one;
   * FTS5's own merging inside the append is off, migration v1), a statement at a time, off the
   * request's path, until FTS5 has nothing more to merge. Those an instance leaves unmerged when
   * it ends are merged by a later one.
   */
  private mergeSoon(): void {
    this.mergedOnce = true
    // Merging already: what is owed waits for the next schedule.
    if (this.merging) return
    // Bounded work a statement: what is owed beyond it goes on in the chain's next statements.
    const pages = Math.min(Math.max(this.owed, MERGE_PAGES_PER_APPEND), MERGE_PAGES_MOST)
    this.unmerged = 0
    this.owed = 0
    this.merging = true
    const step = (pages: number) => {
      let more = false
      try {
        more = this.transaction(() => {
          let more = false
          for (const table of this.tables.written()) {
            const before = this.changes()
            this.sql.run`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ${pages})`
            // FTS5's own test of a merge's work: the rows it changed. One that used all its pages may have more to do.
            more ||= this.changes() - before >= pages
          }
          return more
        })
      } catch (error) {
        log.warn('merging the search index failed; a later append tries again', { error: String(error) })
      }
      // The next statement at once, as its own task: requests arriving meanwhile go between.
      if (more) setTimeout(() => step(MERGE_PAGES_AFTER), 0)
      else this.merging = false
    }
    setTimeout(() => step(pages), MERGE_DELAY_MS)
  }

  private changes(): number {
    return this.sql.first<{ n: number }>`SELECT total_changes() AS n`!.n
  }

  /**
   * The events matching a search, in ranked order from `from` on, each with its position (a
   * cursor's content); only those of `role` when given and with a seq in [`atLeast`, `below`).
   * Ranked a window at a time (`SIZE_LIMITS.searchRankWindow` newest matches, best first and ties
   * newest first, then the window below), read as asked for.
   */
  *ranked(
    search: SearchExpression,
    options: { role?: string; from: SearchPosition; atLeast?: number; below?: number; page: number },
  ): Generator<{ seq: number; at: SearchPosition; found?: PageHit }> {
    let { below, offset } = options.from
    if (options.below !== undefined) below = Math.min(below ?? options.below, options.below)
    // Only the first window walked brings a page's hits with it: a later one (a scope or branch that
    // skipped the first's matches) would mostly bring rows nobody shows.
    let page = options.page
    for (;;) {
      const window = this.window(search, { role: options.role, page }, below ?? Number.MAX_SAFE_INTEGER, options.atLeast ?? 0)
      const { seqs, found } = window
      page = 0
      for (let i = offset; i < seqs.length; i++) yield { seq: seqs[i]!, at: { below, offset: i }, found: found.get(seqs[i]!) }
      if (seqs.length < SIZE_LIMITS.searchRankWindow) return
      below = Math.min(...seqs)
      offset = 0
    }
  }

  /**
   * The newest `count` matches with a seq in [atLeast, below), each with its snippet and its
   * event's row: a window that ends within them with one match (a rare phrase's) needs no other
   * statement.
   */
  private probe({ expression }: SearchExpression, role: string | undefined, from: number, to: number, count: number) {
    const t = this.tables.read()
    return this.sql.all<EventRow & { snippet: string }>`SELECT events.*,
        snippet(${t}, 0, '', '', '…', ${SNIPPET_TOKENS}) AS snippet
      FROM ${t} JOIN events ON events.seq = -${t}.rowid
      WHERE ${t} MATCH ${expression} AND ${t}.rowid > ${from} AND ${t}.rowid <= ${to}
        AND (${role ?? null} IS NULL OR events.role = ${role ?? null})
      ORDER BY ${t}.rowid ${literalLimit(count)}`
  }

  /**
   * The newest window of matches with a seq in [atLeast, below), ranked: from their marked texts
   * (the core's `rankWindow`), or by FTS5's `rank` when one is longer than `RANKED_CHARS`. The
   * newest `page` + 1 come with what a page shows of them (see {@link probe}; none when `page` is
   * 0). The marked texts are read only to rank more than one match: a window of one is the probe.
   */
  private window(
    search: SearchExpression,
    { role, page }: { role?: string; page: number },
    below: number,
    atLeast: number,
  ): { seqs: number[]; found: Map<number, PageHit> } {
    const size = SIZE_LIMITS.searchRankWindow
    // Newest first is rowid order (rowid = -seq): FTS5 walks its doclists forward.
    const [from, to] = [-below, -atLeast]
    // The newest of the window first, ready for a page: enough for a whole page and one more.
    const count = page > 0 ? Math.min(size, page + 1) : 0
    const probed = count > 0 ? this.probe(search, role, from, to, count) : []
    const found = new Map<number, PageHit>()
    for (const { snippet, ...row } of probed) found.set(row.seq, { snippet, row })
    // Fewer than the probe asked for: they are the whole window.
    const whole = count > 0 && probed.length < count
    const rows =
      whole && probed.length <= 1
        ? probed.map(({ seq }) => ({ seq, marked: null }))
        : this.marked(search.expression, role, from, to, whole ? probed.length : size)
    return { seqs: this.order(search, role, rows), found }
  }

  /** The window's first `size` matches (rowid above `from`), with their marked texts. */
  private marked(expression: string, role: string | undefined, from: number, to: number, size: number) {
    const t = this.tables.read()
    return size <= 0
      ? []
      : role === undefined
        ? this.sql.all<{ seq: number; marked: string | null }>`SELECT -rowid AS seq,
            CASE WHEN ${markable('text')} THEN highlight(${t}, 0, ${MARK_OPEN}, ${MARK_CLOSE}) END AS marked
            FROM ${t} WHERE ${t} MATCH ${expression} AND rowid > ${from} AND rowid <= ${to}
            ORDER BY rowid ${literalLimit(size)}`
        : this.sql.all<{ seq: number; marked: string | null }>`SELECT -${t}.rowid AS seq,
            CASE WHEN ${markable(`${t.text}.text`)} THEN highlight(${t}, 0, ${MARK_OPEN}, ${MARK_CLOSE}) END AS marked
            FROM ${t} JOIN events ON events.seq = -${t}.rowid
            WHERE ${t} MATCH ${expression} AND ${t}.rowid > ${from} AND ${t}.rowid <= ${to}
              AND events.role = ${role}
            ORDER BY ${t}.rowid ${literalLimit(size)}`
  }

  /** A window's rows ranked: from their marked texts, or by FTS5's `rank` when one is too long to mark. */
  private order(
    { expression, terms }: SearchExpression,
    role: string | undefined,
    rows: { seq: number; marked: string | null }[],
  ) {
    if (rows.length <= 1) return rows.map((row) => row.seq)
    if (rows.every((row) => row.marked !== null)) return rankWindow(rows as { seq: number; marked: string }[], terms)
    // The same rows again (the window's seqs bound them), ranked by FTS5.
    const [newest, oldest] = [-rows[0]!.seq, -rows.at(-1)!.seq]
    const t = this.tables.read()
    return (
      role === undefined
        ? this.sql.all<{ seq: number }>`SELECT -rowid AS seq FROM ${t}
            WHERE ${t} MATCH ${expression} AND rowid >= ${newest} AND rowid <= ${oldest}
            ORDER BY rank, rowid`
        : this.sql.all<{ seq: number }>`SELECT -${t}.rowid AS seq FROM ${t} JOIN events ON events.seq = -${t}.rowid
            WHERE ${t} MATCH ${expression} AND ${t}.rowid >= ${newest} AND ${t}.rowid <= ${oldest}
              AND events.role = ${role}
            ORDER BY ${t}.rank, ${t}.rowid`
    ).map((row) => row.seq)
  }

  /**
   * The hits of a page: a snippet around the match of each of `seqs` and its event's row, in one
   * statement (made for a page only: it re-reads the text).
   */
  page(expression: string, seqs: readonly number[]): Map<number, PageHit> {
    const page = new Map<number, PageHit>()
    if (seqs.length === 0) return page
    const t = this.tables.read()
    for (const { snippet, ...row } of this.sql.all<EventRow & { snippet: string }>`SELECT
        snippet(${t}, 0, '', '', '…', ${SNIPPET_TOKENS}) AS snippet, events.*
        FROM ${t} JOIN events ON events.seq = -${t}.rowid
        WHERE ${t} MATCH ${expression} AND ${t}.rowid IN (SELECT -value FROM json_each(${JSON.stringify(seqs)}))`) {
      page.set(row.seq, { snippet, row })
    }
    return page
  }
}
