import { SIZE_LIMITS } from '../../contract/limits'
import type { SearchPosition } from '../../contract/schemas'
import { type DocumentText, MARK_CLOSE, MARK_OPEN, type QueryTerm, rankWindow, type SessionEvent, searchTextOf } from '../../core'
import { fragment, literalLimit, type Sql } from '../../sql'
import type { EventRow } from '../log/log'
import { indexedText } from './fts-expression'
import { IndexMerges } from './index-merges'
import { SearchTables } from './search-tables'

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
  private readonly merges: IndexMerges

  constructor(
    private readonly sql: Sql,
    transaction: <T>(work: () => T) => T,
    events: (from: number, to: number) => SessionEvent[],
    /** A stored text/plain document's text, for the index made anew from the log (see {@link SearchTables}). */
    storedText: DocumentText = () => null,
  ) {
    this.merges = new IndexMerges(sql, transaction, () => this.tables.written())
    this.tables = new SearchTables(sql, transaction, events, storedText, (count) => this.merges.owe(count))
  }

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
    if (indexed > 0) this.merges.owe(indexed)
  }

  /** Forgets what it knew of the tables: the storage was wiped. */
  reset = (): void => this.tables.reset()

  /** Merges what an earlier instance left unmerged (once an instance: a search's first call). */
  keepMerged(): void {
    this.merges.keepMerged()
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
