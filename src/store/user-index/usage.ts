import { addUsage, NO_USAGE, type UsageEntry, type UsageTotals } from '../../core'
import { Sql } from '../../sql'

/** A day's usage of one model (`GET /v1/usage`). */
export type UsageDay = { date: string; model: string } & UsageTotals

type Row = {
  date: string
  model: string
  turns: number
  prompt: number
  cached: number
  completion: number
  summary: number
}

/** One user's usage per UTC day and model, in their index object's SQLite: one row each, summed as notices arrive. */
export class UsageDays {
  private readonly sql: Sql

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql.run`CREATE TABLE IF NOT EXISTS usage_days (date TEXT NOT NULL, model TEXT NOT NULL,
      turns INTEGER NOT NULL, prompt INTEGER NOT NULL, cached INTEGER NOT NULL, completion INTEGER NOT NULL,
      summary INTEGER NOT NULL, PRIMARY KEY (date, model)) WITHOUT ROWID`
  }

  /** Adds an entry to the day of `at` (ISO 8601). */
  add(at: string, entry: UsageEntry): void {
    const date = at.slice(0, 10)
    this.sql.run`INSERT INTO usage_days (date, model, turns, prompt, cached, completion, summary)
      VALUES (${date}, ${entry.model}, ${entry.turns}, ${entry.promptTokens}, ${entry.cachedPromptTokens},
        ${entry.completionTokens}, ${entry.summaryTokens})
      ON CONFLICT (date, model) DO UPDATE SET turns = turns + excluded.turns, prompt = prompt + excluded.prompt,
        cached = cached + excluded.cached, completion = completion + excluded.completion, summary = summary + excluded.summary`
  }

  /** The days from `from` to `to` (YYYY-MM-DD, both included), oldest first, each day's models by name. */
  between(from: string, to: string): UsageDay[] {
    return this.sql.all<Row>`SELECT * FROM usage_days WHERE date >= ${from} AND date <= ${to} ORDER BY date, model`.map(
      (row) => ({
        date: row.date,
        model: row.model,
        ...addUsage(NO_USAGE, {
          model: row.model,
          turns: row.turns,
          promptTokens: row.prompt,
          cachedPromptTokens: row.cached,
          completionTokens: row.completion,
          summaryTokens: row.summary,
        }),
      }),
    )
  }
}
