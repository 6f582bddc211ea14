import { log } from '../../log'
import type { Sql, SqlFragment } from '../../sql'

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

/**
 * The merging of a session's search index (see `SessionSearch`): what its appends owe, paid in
 * bounded merge statements a little after them, off the request's path.
 *
 * @example
 * const merges = new IndexMerges(sql, transaction, () => tables.written())
 * merges.owe(12) // after an append that indexed 12 events
 */
export class IndexMerges {
  /** Appends indexed since the last merge was scheduled, and the pages of merging they owe. */
  private unmerged = 0
  private owed = 0
  /** Whether merges are scheduled; whether this instance has scheduled any yet. */
  private merging = false
  private mergedOnce = false

  constructor(
    private readonly sql: Sql,
    private readonly transaction: <T>(work: () => T) => T,
    /** The index's tables being written (the old and the new while one is made anew). */
    private readonly tables: () => SqlFragment[],
  ) {}

  /** The merging owed for an append of `indexed` events (or a rebuild step's). */
  owe(indexed: number): void {
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
          for (const table of this.tables()) {
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
}
