import { DurableObject } from 'cloudflare:workers'
import { type Outcome, ServiceError, toOutcome, unwrap } from '../contract/errors'
import { newDeliveryId, newWebhookId } from '../contract/ids'
import type { Notice } from '../core'
import type { Refusal, TurnLimits } from '../rate-limits'
import { NoticeInbox } from '../store/user-index/inbox'
import { UserLimits } from '../store/user-index/limits'
import { SessionIndex, type SessionIndexCursor, type SessionIndexEntry } from '../store/user-index/session-index'
import { UsageDays } from '../store/user-index/usage'
import { type DeliveryStatus, type WebhookJson, Webhooks } from '../store/user-index/webhooks'
import { newWebhookSecret } from '../webhooks'
import { sessionClient } from './session-client'
import { sendDue } from './webhook-sender'

/** The sweep's batch, its first run after an erasure (the request sweeps first), and its retry after a failure. */
const SWEEP_BATCH = 50
const SWEEP_AFTER_MS = 60_000
const SWEEP_RETRY_MS = 30_000

/** Webhook endpoints one user may have. */
const MAX_WEBHOOKS = 20

const now = () => new Date().toISOString()
const notFound = (id: string): never => {
  throw new ServiceError('not_found', `webhook "${id}" not found`)
}

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

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sessions = new SessionIndex(ctx.storage.sql)
    this.limits = new UserLimits(ctx.storage.sql)
    this.inbox = new NoticeInbox(ctx.storage.sql)
    this.usageDays = new UsageDays(ctx.storage.sql)
    this.hooks = new Webhooks(ctx.storage.sql)
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

  /** A new webhook endpoint, with its secret (shown only now); at most {@link MAX_WEBHOOKS}. */
  createWebhook(input: {
    url: string
    events: string[]
    description?: string
  }): Promise<Outcome<WebhookJson & { secret: string }>> {
    return toOutcome(() => {
      if (this.hooks.count() >= MAX_WEBHOOKS)
        throw new ServiceError('invalid_request', `a user may have at most ${MAX_WEBHOOKS} webhooks: delete one first`)
      const secret = newWebhookSecret()
      const id = newWebhookId()
      const created = this.hooks.create({ ...input, description: input.description ?? null, id, secret, createdAt: now() })
      return { ...created, secret }
    })
  }

  listWebhooks(): WebhookJson[] {
    return this.hooks.list()
  }

  getWebhook(id: string): Promise<Outcome<WebhookJson>> {
    return toOutcome(() => this.hooks.get(id) ?? notFound(id))
  }

  patchWebhook(
    id: string,
    change: { events?: string[]; description?: string | null; disabled?: boolean },
  ): Promise<Outcome<WebhookJson>> {
    return toOutcome(() => this.hooks.patch(id, change) ?? notFound(id))
  }

  deleteWebhook(id: string): Promise<Outcome<null>> {
    return toOutcome(() => (this.hooks.delete(id) ? null : notFound(id)))
  }

  /** Sends the endpoint a `webhook.test` event, whatever it subscribes to (a disabled one records it failed). */
  testWebhook(id: string): Promise<Outcome<{ id: string }>> {
    return toOutcome(async () => {
      if (!this.hooks.get(id)) notFound(id)
      const notice = { id: `test_${crypto.randomUUID()}`, type: 'webhook.test', timestamp: now(), data: { webhookId: id } }
      let delivery = ''
      const pending = this.hooks.fanOut([notice as unknown as Notice], () => (delivery = newDeliveryId()), id)
      if (pending > 0) await this.wake(Date.now())
      return { id: delivery }
    })
  }

  webhookDeliveries(id: string, status: DeliveryStatus | undefined, limit: number) {
    return toOutcome(() => {
      if (!this.hooks.get(id)) notFound(id)
      return this.hooks.deliveries(id, status, limit)
    })
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
    await this.wake(Date.now() + SWEEP_AFTER_MS)
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
