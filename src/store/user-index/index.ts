import { DurableObject } from 'cloudflare:workers'
import type { Refusal, TurnLimits } from '../../limits'
import { UserLimits } from './limits'

export interface IndexEntry {
  id: string
  createdAt: string
  expiresAt: string | null
}

export interface IndexCursor {
  createdAt: string
  id: string
}

/**
 * One user's session index: which sessions the user has, newest first. Session objects keep it
 * true — they add themselves when created and remove themselves when deleted or expired — and
 * entries past their expiry are never listed. It also keeps the user's limit counters (see
 * {@link UserLimits}): one object per user, so limits never need a global counter.
 */
export class UserIndex extends DurableObject<Env> {
  private readonly sql: SqlStorage
  private readonly limits: UserLimits

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sql = ctx.storage.sql
    this.limits = new UserLimits(ctx.storage.sql)
    this.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, expires_at TEXT);
      CREATE INDEX IF NOT EXISTS newest_first ON sessions (created_at DESC, id DESC)`)
  }

  /** Lists a session, or updates its entry (idempotent). */
  add(entry: IndexEntry): void {
    this.sql.exec(
      'INSERT OR REPLACE INTO sessions (id, created_at, expires_at) VALUES (?, ?, ?)',
      entry.id,
      entry.createdAt,
      entry.expiresAt,
    )
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time). */
  remove(id: string, createdAt: string): void {
    this.sql.exec('DELETE FROM sessions WHERE id = ? AND created_at = ?', id, createdAt)
  }

  /** One page of live sessions, newest first, after the cursor. */
  page(limit: number, cursor: IndexCursor | null, now: string): { entries: IndexEntry[]; next: IndexCursor | null } {
    const after = cursor ?? { createdAt: '\uffff', id: '' }
    const rows = this.sql
      .exec<{ id: string; created_at: string; expires_at: string | null }>(
        `SELECT id, created_at, expires_at FROM sessions
         WHERE (expires_at IS NULL OR expires_at > ?) AND (created_at < ? OR (created_at = ? AND id < ?))
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        now,
        after.createdAt,
        after.createdAt,
        cursor ? after.id : '\uffff',
        limit + 1,
      )
      .toArray()
    const entries = rows.slice(0, limit).map((r) => ({ id: r.id, createdAt: r.created_at, expiresAt: r.expires_at }))
    const last = entries.at(-1)
    return { entries, next: rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null }
  }

  /** Counts a request against `limit` per minute, or answers the refusal (see {@link UserLimits}). */
  admitRequest(limit: number): Refusal | null {
    return this.limits.admitRequest(limit, Date.now())
  }

  /** Counts a model turn, or answers the refusal (its request then taken back). */
  admitTurn(limits: Pick<TurnLimits, 'turnsPerMinute' | 'tokensPerDay'>): Refusal | null {
    return this.limits.admitTurn(limits, Date.now())
  }

  /** Takes back an admitted turn that never reached the model. */
  refundTurn(): void {
    this.limits.refundTurn(Date.now())
  }

  /** Takes back a counted request that a limit refused later (a session's queue). */
  refundRequest(): void {
    this.limits.refundRequest(Date.now())
  }

  /** Adds the tokens a model call reported to the user's day. */
  spend(tokens: number): void {
    this.limits.spend(tokens, Date.now())
  }
}
