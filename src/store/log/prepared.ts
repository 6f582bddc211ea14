import type { PreparedSummary, SummaryMessage } from '../../core'
import type { Sql } from '../../sql'

/** A session's prepared summary as stored, with what `/context` reports of it. */
export interface StoredPrepared extends PreparedSummary {
  /** Which summarizer wrote it (its options, as JSON). */
  summarizer: string
  /** The summary's estimated tokens. */
  tokens: number
  preparedAt: string
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
 * The session's prepared summary (round4 §6): one row beside the log, replaced by each top-up,
 * wiped with the session. Storage only: whether it may be used is the core's `preparedPrefix`.
 *
 * @example
 * prepared.write({ ...summary, summarizer: key, tokens, preparedAt })
 * prepared.read() // the same, or null
 */
export class PreparedSummaries {
  constructor(private readonly sql: Sql) {}

  /** The prepared summary, or null when none was. */
  read(): StoredPrepared | null {
    const row = this.sql.first<Row>`SELECT summarizer, prior, covered, messages, title, tokens, prepared_at FROM prepared_summary`
    if (!row) return null
    return {
      summarizer: row.summarizer,
      prior: new Int32Array(row.prior),
      covered: new Int32Array(row.covered),
      messages: JSON.parse(row.messages) as SummaryMessage[],
      ...(row.title === null ? {} : { title: row.title }),
      tokens: row.tokens,
      preparedAt: row.prepared_at,
    }
  }

  /** Keeps `prepared` in place of the one before. */
  write(prepared: StoredPrepared): void {
    this.sql
      .run`INSERT OR REPLACE INTO prepared_summary (singleton, summarizer, prior, covered, messages, title, tokens, prepared_at)
      VALUES (1, ${prepared.summarizer}, ${prepared.prior.slice().buffer}, ${prepared.covered.slice().buffer},
        ${JSON.stringify(prepared.messages)}, ${prepared.title ?? null}, ${prepared.tokens}, ${prepared.preparedAt})`
  }
}
