import { DurableObject } from 'cloudflare:workers'
import type { Refusal, TurnLimits } from '../rate-limits'
import { UserLimits } from '../store/user-index/limits'
import { SessionIndex, type SessionIndexCursor, type SessionIndexEntry } from '../store/user-index/session-index'

/**
 * One user's index object: which sessions the user has, newest first (see {@link SessionIndex}),
 * and the user's limit counters (see {@link UserLimits}) — one object per user, so limits never
 * need a global counter.
 */
export class UserIndex extends DurableObject<Env> {
  private readonly sessions: SessionIndex
  private readonly limits: UserLimits

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sessions = new SessionIndex(ctx.storage.sql)
    this.limits = new UserLimits(ctx.storage.sql)
  }

  /** Lists a session, or updates its entry (idempotent). */
  add(entry: SessionIndexEntry): void {
    this.sessions.add(entry)
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time). */
  remove(id: string, createdAt: string): void {
    this.sessions.remove(id, createdAt)
  }

  /** One page of live sessions, newest first, after the cursor. */
  page(limit: number, cursor: SessionIndexCursor | null, now: string) {
    return this.sessions.page(limit, cursor, now)
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
