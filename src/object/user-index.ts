import { DurableObject } from 'cloudflare:workers'
import { unwrap } from '../contract/errors'
import type { Refusal, TurnLimits } from '../rate-limits'
import { UserLimits } from '../store/user-index/limits'
import { SessionIndex, type SessionIndexCursor, type SessionIndexEntry } from '../store/user-index/session-index'
import { sessionClient } from './session-client'

/** The sweep's batch, its first run after an erasure (the request sweeps first), and its retry after a failure. */
const SWEEP_BATCH = 50
const SWEEP_AFTER_MS = 60_000
const SWEEP_RETRY_MS = 30_000

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

  /** Lists a session, or updates its entry (idempotent); one an erasure covers (it was listed late) is swept at once. */
  async add(entry: SessionIndexEntry): Promise<void> {
    this.sessions.add(entry)
    const erasure = this.sessions.erasure()
    if (erasure && entry.createdAt < erasure.before) await this.ctx.storage.setAlarm(Date.now())
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time). */
  remove(id: string, createdAt: string): void {
    this.sessions.remove(id, createdAt)
  }

  /** One page of live sessions, newest first, after the cursor. */
  page(limit: number, cursor: SessionIndexCursor | null, now: string) {
    return this.sessions.page(limit, cursor, now)
  }

  /**
   * Erases every session of the user created before `before`: the index lists none of them from
   * now on, and its alarm sweeps them (each session object erased) until none is left — also
   * after a restart, and when the request that asked did not finish the sweep itself.
   */
  async eraseAll(userId: string, before: string): Promise<void> {
    this.sessions.eraseBefore(userId, before)
    await this.ctx.storage.setAlarm(Date.now() + SWEEP_AFTER_MS)
  }

  /** Sessions an erasure has left to sweep, oldest first. */
  erased(limit: number, after = ''): SessionIndexEntry[] {
    return this.sessions.erased(limit, after)
  }

  /** Drops swept sessions from the index (their objects erased). */
  forget(entries: SessionIndexEntry[]): void {
    for (const entry of entries) this.sessions.remove(entry.id, entry.createdAt)
  }

  /** The sweep: a batch of erased sessions erased in their objects, then dropped; again until none is left. */
  override async alarm(): Promise<void> {
    const erasure = this.sessions.erasure()
    const batch = this.sessions.erased(SWEEP_BATCH)
    if (!erasure || batch.length === 0) return
    const done = await Promise.allSettled(
      batch.map(async (entry) => unwrap(await sessionClient(this.env, erasure.userId, entry.id).erase(entry.createdAt))),
    )
    batch.forEach((entry, i) => {
      if (done[i]!.status === 'fulfilled') this.sessions.remove(entry.id, entry.createdAt)
    })
    const failed = done.some((result) => result.status === 'rejected')
    await this.ctx.storage.setAlarm(Date.now() + (failed ? SWEEP_RETRY_MS : 0))
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
