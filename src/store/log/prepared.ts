import type { PreparedSummary, SummaryMessage } from '../../core'
import type { Sql } from '../../sql'

/** A prepared summary as stored, with what `/context` reports of it. */
export interface StoredPrepared extends PreparedSummary {
  /** The summary's estimated tokens. */
  tokens: number
  preparedAt: string
}

/** A session's prepared summaries: those of its newest preparation, and which summarizer wrote them. */
export interface PreparedSet {
  /** The summarizer's options, as JSON: a pass of another summarizer uses none of them. */
  summarizer: string
  summaries: StoredPrepared[]
}

type Row = {
  summarizer: string
  prior: ArrayBuffer
  covered: ArrayBuffer
  messages: string
  title: string | null
  tokens: number
  prepared_at: string
}

/**
 * A session's prepared summaries (round4 §6): a few rows beside the log, replaced by each
 * preparation, wiped with the session. Storage only: which one a pass may use is the core's.
 *
 * @example
 * prepared.write({ summarizer: key, summaries })
 * prepared.read() // the same, or null
 */
export class PreparedSummaries {
  constructor(private readonly sql: Sql) {}

  /** The prepared summaries, or null when there are none. */
  read(): PreparedSet | null {
    const rows = this.sql.all<Row>`SELECT summarizer, prior, covered, messages, title, tokens, prepared_at
      FROM prepared_summary ORDER BY slot`
    if (rows.length === 0) return null
    return {
      summarizer: rows[0]!.summarizer,
      summaries: rows.map((row) => ({
        prior: new Int32Array(row.prior),
        covered: new Int32Array(row.covered),
        messages: JSON.parse(row.messages) as SummaryMessage[],
        ...(row.title === null ? {} : { title: row.title }),
        tokens: row.tokens,
        preparedAt: row.prepared_at,
      })),
    }
  }

  /** Keeps `set` in place of the ones before. */
  write(set: PreparedSet): void {
    this.sql.run`DELETE FROM prepared_summary`
    set.summaries.forEach((prepared, slot) => {
      this.sql.run`INSERT INTO prepared_summary (slot, summarizer, prior, covered, messages, title, tokens, prepared_at)
        VALUES (${slot}, ${set.summarizer}, ${prepared.prior.slice().buffer}, ${prepared.covered.slice().buffer},
          ${JSON.stringify(prepared.messages)}, ${prepared.title ?? null}, ${prepared.tokens}, ${prepared.preparedAt})`
    })
  }
}
