import { type DocumentText, type SessionEvent, searchTextOf } from '../../core'
import { log } from '../../log'
import { fragment, type Sql, type SqlFragment } from '../../sql'
import { indexedText } from './fts-expression'

/** Events a rebuild step indexes: one transaction of a few milliseconds, requests go between steps. */
const REBUILD_STEP = 500

const STEMMED = fragment('search')
const EXACT = fragment('search_exact')

/**
 * The session's full-text tables while its index is rebuilt and after. Migration v17 made the
 * index anew with FTS5's porter tokenizer; a session that held events then keeps its old index
 * (`search_exact`) for its searches while the new one (`search`) is filled from the log in the
 * background, newest first, {@link REBUILD_STEP} events a step between requests — never in a
 * request's path. Appends meanwhile index into both. Once the new index holds every event, the
 * old one is dropped and searches read the new one. A session not written nor searched is left
 * as it is until it is.
 *
 * @example
 * const tables = new SearchTables(sql, transaction, (from, to) => log.range(from, to), blobs.storedText, merge)
 * sql.all`SELECT rowid FROM ${tables.read()} WHERE ${tables.read()} MATCH ${expression}`
 */
export class SearchTables {
  /** Events below this seq are not in the new index yet; null: it holds every one; undefined: not read yet. */
  private below: number | null | undefined
  /** Bumped when the storage is wiped: a step scheduled before stops. */
  private generation = 0
  private scheduled = false

  constructor(
    private readonly sql: Sql,
    private readonly transaction: <T>(work: () => T) => T,
    private readonly events: (from: number, to: number) => SessionEvent[],
    /** A stored text/plain document's text: the new index finds a document by it, as an append's does. */
    private readonly documentText: DocumentText,
    /** Told of each step's indexed events: their segment is merged like an append's. */
    private readonly indexed: (count: number) => void,
    /** Runs a step later, off the request's path (a test runs them one by one). */
    private readonly later: (step: () => void) => void = (step) => setTimeout(step, 0),
  ) {}

  /** The table searches read: the old index while the new one is being filled. */
  read(): SqlFragment {
    return this.rebuilding() ? EXACT : STEMMED
  }

  /** The tables a write indexes into. */
  written(): SqlFragment[] {
    return this.rebuilding() ? [STEMMED, EXACT] : [STEMMED]
  }

  /** Forgets what it knew: the storage was wiped (a new session starts with the new index alone). */
  reset(): void {
    this.below = undefined
    this.generation++
    this.scheduled = false
  }

  /** Whether the new index is still being filled (read once an instance); schedules the filling when it is. */
  private rebuilding(): boolean {
    if (this.below === undefined) {
      this.below = this.sql.first<{ below: number }>`SELECT below FROM search_rebuild`?.below ?? null
    }
    if (this.below !== null && !this.scheduled) this.schedule()
    return this.below !== null
  }

  private schedule(): void {
    this.scheduled = true
    const generation = this.generation
    this.later(() => this.step(generation))
  }

  /** One step: the newest events not yet in the new index, indexed; then the next step, or the old index dropped. */
  private step(generation: number): void {
    if (generation !== this.generation) return
    try {
      const below = this.transaction(() => {
        const row = this.sql.first<{ below: number }>`SELECT below FROM search_rebuild`
        if (!row) return null
        const from = Math.max(1, row.below - REBUILD_STEP)
        let count = 0
        // Newest first: rowids (-seq) ascending in the transaction make one segment.
        for (const event of this.events(from, row.below - 1).toReversed()) {
          if (event.type !== 'MESSAGE') continue
          const text = indexedText(searchTextOf(event.message, this.documentText))
          if (text === '') continue
          this.sql.run`INSERT INTO search (rowid, text) VALUES (${-event.seq}, ${text})`
          count++
        }
        if (count > 0) this.indexed(count)
        if (from > 1) {
          this.sql.run`UPDATE search_rebuild SET below = ${from}`
          return from
        }
        this.sql.run`DELETE FROM search_rebuild`
        this.sql.run`DROP TABLE search_exact`
        return null
      })
      if (generation !== this.generation) return
      this.below = below
      if (below !== null) this.later(() => this.step(generation))
      else this.scheduled = false
    } catch (error) {
      // The storage was wiped meanwhile, or the step failed: the next write or search schedules it again.
      this.scheduled = false
      this.below = undefined
      log.warn('rebuilding the search index failed; a later write or search goes on', { error: String(error) })
    }
  }
}
