import { Sql } from '../sql'
import { DAY_MS, MINUTE_MS, type Refusal, type TurnLimits, windowOf } from './limits'

type Counter = 'turns' | 'tokens'
const WINDOW: Record<Counter, number> = { turns: MINUTE_MS, tokens: DAY_MS }

/**
 * One user's exact limit counters — model turns and the day's tokens, whose rate is low — in
 * their index object's SQLite (so they survive restarts, and the object serializes every check
 * with its count): one row per counter, its fixed window and what was used in it. A check and its
 * count happen in one call, with no await between. (Requests are counted apart, in shards: see
 * `object/request-limit`.)
 */
export class UserLimits {
  private readonly sql: Sql

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql.run`CREATE TABLE IF NOT EXISTS limits (counter TEXT PRIMARY KEY, window INTEGER NOT NULL, used INTEGER NOT NULL)`
  }

  /** What a counter used in the window `now` falls in, and that window. */
  private usage(counter: Counter, now: number): { window: number; used: number } {
    const window = windowOf(now, WINDOW[counter])
    const row = this.sql.first<{ window: number; used: number }>`SELECT window, used FROM limits WHERE counter = ${counter}`
    return { window, used: row?.window === window ? row.used : 0 }
  }

  /** Adds to a counter (what it used may be passed in when the caller just read it: one read a call). */
  private add(counter: Counter, now: number, amount: number, { window, used } = this.usage(counter, now)): void {
    const next = Math.max(0, used + amount)
    this.sql.run`INSERT INTO limits (counter, window, used) VALUES (${counter}, ${window}, ${next})
      ON CONFLICT (counter) DO UPDATE SET window = excluded.window, used = excluded.used`
  }

  /**
   * Counts a model turn, or refuses it: the day's tokens used up, or `turnsPerMinute` turns this
   * minute.
   */
  admitTurn(limits: Pick<TurnLimits, 'turnsPerMinute' | 'tokensPerDay'>, now: number): Refusal | null {
    const refusal = this.turnRefusal(limits, now)
    if (!refusal && limits.turnsPerMinute > 0) this.add('turns', now, 1)
    return refusal
  }

  private turnRefusal({ turnsPerMinute, tokensPerDay }: Pick<TurnLimits, 'turnsPerMinute' | 'tokensPerDay'>, now: number) {
    if (tokensPerDay > 0) {
      const { window, used } = this.usage('tokens', now)
      if (used >= tokensPerDay) return { scope: 'tokens', limit: tokensPerDay, resetAt: window + DAY_MS } as const
    }
    if (turnsPerMinute > 0) {
      const { window, used } = this.usage('turns', now)
      if (used >= turnsPerMinute) return { scope: 'turns', limit: turnsPerMinute, resetAt: window + MINUTE_MS } as const
    }
    return null
  }

  /** Takes back a turn that was admitted but never reached the model (a 413, say). */
  refundTurn(now: number): void {
    this.add('turns', now, -1)
  }

  /** Adds the tokens a model call reported to the day's. */
  spend(tokens: number, now: number): void {
    if (tokens > 0) this.add('tokens', now, tokens)
  }
}
