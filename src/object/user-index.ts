import { DurableObject } from 'cloudflare:workers'
import { type Outcome, toOutcome, unwrap } from '../contract/errors'
import { newDeliveryId } from '../contract/ids'
import type { DeliveryStatus, WebhookJson } from '../contract/schemas/webhooks'
import { acrossSessions } from '../contract/search-settings'
import { log } from '../log'
import { type Refusal, type TurnLimits, UserLimits } from '../rate-limits'
import {
  type SessionFilters,
  SessionIndex,
  type SessionIndexCursor,
  type SessionIndexEntry,
} from '../store/user-index/session-index'
import { UsageDays } from '../store/user-index/usage'
import { type Notice, NoticeInbox, sendDue, WebhookEndpoints, Webhooks } from '../webhooks'
import { searchShardStub } from './address'
import { sessionClient } from './session-client'

/** The sweep's batch, its first run after an erasure (the request sweeps first), and its retry after a failure. */
const SWEEP_BATCH = 50
const SWEEP_AFTER_MS = 60_000
const SWEEP_RETRY_MS = 30_000

/**
 * One user's index object: which sessions the user has, newest first (see {@link SessionIndex}),
 * the user's turn and token counters (see {@link UserLimits}) — one object per user, so those
 * exact limits never need a global counter — and what the user's sessions tell: their usage per day and model, and
 * the deliveries to the user's webhooks, sent and retried by this object's alarm.
 */
export class UserIndex extends DurableObject<Env> {
  private readonly sessions: SessionIndex
  private readonly limits: UserLimits
  private readonly inbox: NoticeInbox
  private readonly usageDays: UsageDays
  private readonly hooks: Webhooks
  private readonly endpoints: WebhookEndpoints

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sessions = new SessionIndex(ctx.storage.sql)
    this.limits = new UserLimits(ctx.storage.sql)
    this.inbox = new NoticeInbox(ctx.storage.sql)
    this.usageDays = new UsageDays(ctx.storage.sql)
    this.hooks = new Webhooks(ctx.storage.sql)
    this.endpoints = new WebhookEndpoints(this.hooks, (at) => this.wake(at))
  }

  /**
   * Takes notices from a session (its outbox, or its last words as it ends), each once: its usage
   * counted, a delivery made to each webhook that subscribes to its type — in one transaction —
   * and the alarm woken to send them.
   */
  async receive(notices: Notice[]): Promise<void> {
    this.ctx.storage.transactionSync(() => {
      const fresh = this.inbox.take(notices, Date.now())
      for (const notice of fresh) if (notice.usage) this.usageDays.add(notice.timestamp, notice.usage)
      this.hooks.fanOut(fresh, newDeliveryId)
    })
    // Whatever is pending, also what a hand-over cut short by a crash left unscheduled.
    const next = this.hooks.nextDue()
    if (next !== null) await this.wake(next)
  }

  /** A new webhook endpoint, with its secret (shown only now). */
  createWebhook(input: { url: string; events: string[]; description?: string }) {
    return toOutcome(() => this.endpoints.create(input))
  }

  listWebhooks(): WebhookJson[] {
    return this.endpoints.list()
  }

  getWebhook(id: string): Promise<Outcome<WebhookJson>> {
    return toOutcome(() => this.endpoints.get(id))
  }

  patchWebhook(id: string, change: { events?: string[]; description?: string | null; disabled?: boolean }) {
    return toOutcome(() => this.endpoints.patch(id, change))
  }

  deleteWebhook(id: string): Promise<Outcome<null>> {
    return toOutcome(() => this.endpoints.delete(id))
  }

  /** Sends the endpoint a `webhook.test` event, whatever it subscribes to. */
  testWebhook(id: string): Promise<Outcome<{ id: string }>> {
    return toOutcome(() => this.endpoints.test(id))
  }

  webhookDeliveries(id: string, status: DeliveryStatus | undefined, limit: number) {
    return toOutcome(() => this.endpoints.deliveries(id, status, limit))
  }

  /** The user's usage per day and model from `from` to `to` (YYYY-MM-DD, both included). */
  usage(from: string, to: string) {
    return this.usageDays.between(from, to)
  }

  /** Lists a session, or updates its entry (idempotent); one an erasure covers (it was listed late) is swept at once. */
  async add(entry: SessionIndexEntry): Promise<void> {
    this.sessions.add(entry)
    const erasure = this.sessions.erasure()
    if (erasure && entry.createdAt < erasure.before) await this.wake(Date.now())
  }

  /** Removes a session's entry, only if it is the same incarnation (same creation time), taking its last notices. */
  async remove(id: string, createdAt: string, notices: Notice[] = []): Promise<void> {
    this.sessions.remove(id, createdAt)
    if (notices.length > 0) await this.receive(notices)
  }

  /** One page of live sessions that pass the filters, newest first (or most recently updated first), after the cursor. */
  page(limit: number, cursor: SessionIndexCursor | null, now: string, filters: SessionFilters = {}) {
    return this.sessions.page(limit, cursor, now, filters)
  }

  /**
   * Erases every session of the user created before `before`: the index lists none of them from
   * now on, and its alarm sweeps them (each session object erased) until none is left — also
   * after a restart, and when the request that asked did not finish the sweep itself.
   */
  async eraseAll(userId: string, before: string): Promise<void> {
    this.sessions.eraseBefore(userId, before)
    await this.wake(Date.now() + SWEEP_AFTER_MS)
    await this.eraseSearched(userId, before)
  }

  /** Tells each of the user's search shards to hide (and purge) the sessions created before `before`. */
  private async eraseSearched(userId: string, before: string): Promise<void> {
    try {
      const { on, shards } = acrossSessions(this.env)
      if (!on) return
      const told = await Promise.allSettled(
        Array.from({ length: shards }, (_, shard) => searchShardStub(this.env, userId, shards, shard).eraseBefore(before)),
      )
      if (told.some((result) => result.status === 'rejected')) throw new Error('a search shard was out of reach')
    } catch (error) {
      // Each hit is asked of its session, which the erasure ends: the search never returns them whatever a shard holds.
      log.warn('telling the search shards of an erasure failed', { error: String(error) })
    }
  }

  /** Sessions an erasure has left to sweep, oldest first. */
  erased(limit: number, after = ''): SessionIndexEntry[] {
    return this.sessions.erased(limit, after)
  }

  /** Drops swept sessions from the index (their objects erased). */
  forget(entries: SessionIndexEntry[]): void {
    for (const entry of entries) this.sessions.remove(entry.id, entry.createdAt)
  }

  /** The sweep and the deliveries due, then the alarm set for whichever is next. */
  override async alarm(): Promise<void> {
    const sweep = await this.sweep()
    const deliveries = sendDue(
      this.hooks,
      this.env,
      (work) => this.ctx.waitUntil(work),
      (at) => this.wake(at),
    )
    const next = [sweep, deliveries].filter((at) => at !== null)
    if (next.length > 0) await this.ctx.storage.setAlarm(Math.min(...next))
  }

  /** Sets the alarm to `at` unless it is set earlier already. */
  private async wake(at: number): Promise<void> {
    const set = await this.ctx.storage.getAlarm()
    if (set === null || at < set) await this.ctx.storage.setAlarm(at)
  }

  /** A batch of erased sessions erased in their objects, then dropped; when to sweep again (null: none is left). */
  private async sweep(): Promise<number | null> {
    const erasure = this.sessions.erasure()
    const batch = this.sessions.erased(SWEEP_BATCH)
    if (!erasure || batch.length === 0) return null
    const done = await Promise.allSettled(
      batch.map(async (entry) => unwrap(await sessionClient(this.env, erasure.userId, entry.id).erase(entry.createdAt))),
    )
    batch.forEach((entry, i) => {
      if (done[i]!.status === 'fulfilled') this.sessions.remove(entry.id, entry.createdAt)
    })
    const failed = done.some((result) => result.status === 'rejected')
    return Date.now() + (failed ? SWEEP_RETRY_MS : 0)
  }

  /** Counts a model turn, or answers the refusal. */
  admitTurn(limits: Pick<TurnLimits, 'turnsPerMinute' | 'tokensPerDay'>): Refusal | null {
    return this.limits.admitTurn(limits, Date.now())
  }

  /** Takes back an admitted turn that never reached the model. */
  refundTurn(): void {
    this.limits.refundTurn(Date.now())
  }

  /** Adds the tokens a model call reported to the user's day. */
  spend(tokens: number): void {
    this.limits.spend(tokens, Date.now())
  }
}
