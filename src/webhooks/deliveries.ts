import type { DeliveryJson, DeliveryStatus, WebhookJson } from '../contract/schemas/webhooks'
import { Sql } from '../sql'
import { type Notice, subscribes } from './notices'
import { nextAttemptAt } from './retry'

/** A delivery due now, with what sending it takes. */
export interface DueDelivery {
  id: string
  webhookId: string
  url: string
  secret: string
  body: string
  attempts: number
  createdAt: string
}

type WebhookRow = {
  id: string
  url: string
  secret: string
  events: string
  description: string | null
  created_at: string
  disabled: number
}
type DeliveryRow = {
  id: string
  type: string
  status: DeliveryStatus
  attempts: number
  last_status: number | null
  last_error: string | null
  created_at: string
}

/** Finished deliveries are kept this long for `GET …/deliveries`. */
const KEEP_MS = 7 * 24 * 3600 * 1000

const webhookJson = (row: WebhookRow): WebhookJson => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  description: row.description,
  createdAt: row.created_at,
  disabled: row.disabled === 1,
})

/**
 * One user's webhook endpoints and their deliveries, in the user's index object's SQLite: each
 * notice fanned out to the endpoints that subscribe to its type (one delivery each, at most once
 * per notice and endpoint), then sent and retried by the object's alarm until delivered or given
 * up. Sessions hand their notices over from their own outbox, so a crash anywhere loses none.
 */
export class Webhooks {
  private readonly sql: Sql

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql.run`CREATE TABLE IF NOT EXISTS webhooks (
      id TEXT PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL, events TEXT NOT NULL,
      description TEXT, created_at TEXT NOT NULL, disabled INTEGER NOT NULL DEFAULT 0)`
    this.sql.run`CREATE TABLE IF NOT EXISTS deliveries (
      id TEXT PRIMARY KEY, webhook_id TEXT NOT NULL, notice_id TEXT NOT NULL, type TEXT NOT NULL,
      body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
      last_status INTEGER, last_error TEXT, created_at TEXT NOT NULL, next_at INTEGER,
      UNIQUE (notice_id, webhook_id))`
    this.sql.run`CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_at) WHERE status = 'pending'`
    this.sql.run`CREATE INDEX IF NOT EXISTS deliveries_of ON deliveries (webhook_id, created_at)`
    // What a prune looks at: the finished, oldest first (never a scan of the week's deliveries).
    this.sql.run`CREATE INDEX IF NOT EXISTS deliveries_done ON deliveries (created_at) WHERE status != 'pending'`
  }

  create(webhook: Omit<WebhookJson, 'disabled'> & { secret: string }): WebhookJson {
    const { id, url, secret, events, description, createdAt } = webhook
    this.sql.run`INSERT INTO webhooks (id, url, secret, events, description, created_at)
      VALUES (${id}, ${url}, ${secret}, ${JSON.stringify(events)}, ${description}, ${createdAt})`
    return this.get(id)!
  }

  count(): number {
    return this.sql.first<{ n: number }>`SELECT count(*) AS n FROM webhooks`!.n
  }

  list(): WebhookJson[] {
    return this.sql.all<WebhookRow>`SELECT * FROM webhooks ORDER BY created_at, id`.map(webhookJson)
  }

  get(id: string): WebhookJson | null {
    const row = this.sql.first<WebhookRow>`SELECT * FROM webhooks WHERE id = ${id}`
    return row ? webhookJson(row) : null
  }

  /** Changes what is given; `disabled: false` enables it again (deliveries failed meanwhile stay failed). */
  patch(id: string, change: { events?: string[]; description?: string | null; disabled?: boolean }): WebhookJson | null {
    const now = this.get(id)
    if (!now) return null
    const events = JSON.stringify(change.events ?? now.events)
    const description = change.description === undefined ? now.description : change.description
    const disabled = (change.disabled ?? now.disabled) ? 1 : 0
    this.sql.run`UPDATE webhooks SET events = ${events}, description = ${description}, disabled = ${disabled} WHERE id = ${id}`
    return this.get(id)
  }

  /** Deletes the endpoint and its deliveries; whether it existed. */
  delete(id: string): boolean {
    if (!this.get(id)) return false
    this.sql.run`DELETE FROM deliveries WHERE webhook_id = ${id}`
    this.sql.run`DELETE FROM webhooks WHERE id = ${id}`
    return true
  }

  /**
   * One delivery of each notice to each endpoint that subscribes to its type (or to `only`,
   * whatever it subscribes to): pending, or failed at once when the endpoint is disabled. A
   * notice fanned out before is not again. Answers how many are pending.
   */
  fanOut(notices: readonly Notice[], newId: () => string, only?: string): number {
    const endpoints = this.sql.all<WebhookRow>`SELECT * FROM webhooks`.filter((row) => only === undefined || row.id === only)
    let pending = 0
    for (const notice of notices) {
      const body = JSON.stringify({ type: notice.type, timestamp: notice.timestamp, data: notice.data })
      for (const endpoint of endpoints) {
        if (only === undefined && !subscribes(JSON.parse(endpoint.events) as string[], notice.type)) continue
        const disabled = endpoint.disabled === 1
        const status: DeliveryStatus = disabled ? 'failed' : 'pending'
        this.sql.run`INSERT INTO deliveries (id, webhook_id, notice_id, type, body, status, last_error, created_at, next_at)
          VALUES (${newId()}, ${endpoint.id}, ${notice.id}, ${notice.type}, ${body}, ${status},
            ${disabled ? 'the endpoint is disabled' : null}, ${new Date().toISOString()}, ${disabled ? null : Date.now()})
          ON CONFLICT (notice_id, webhook_id) DO NOTHING`
        if (!disabled) pending++
      }
    }
    return pending
  }

  /**
   * Pending deliveries due by `now` to enabled endpoints, the earliest first, at most `limit` —
   * each leased until `leaseUntil` (not due again meanwhile; its attempt's outcome replaces it).
   */
  take(now: number, limit: number, leaseUntil: number): DueDelivery[] {
    const due = this.sql.all<{
      id: string
      webhook_id: string
      url: string
      secret: string
      body: string
      attempts: number
      created_at: string
    }>`
        SELECT d.id, d.webhook_id, w.url, w.secret, d.body, d.attempts, d.created_at
        FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND d.next_at <= ${now} AND w.disabled = 0 ORDER BY d.next_at LIMIT ${limit}`
    if (due.length > 0) this.sql.run`UPDATE deliveries SET next_at = ${leaseUntil} WHERE id IN (${due.map((row) => row.id)})`
    return due.map((row) => ({
      id: row.id,
      webhookId: row.webhook_id,
      url: row.url,
      secret: row.secret,
      body: row.body,
      attempts: row.attempts,
      createdAt: row.created_at,
    }))
  }

  /** When the next pending delivery is due (null: none is pending). */
  nextDue(): number | null {
    return (
      this.sql.first<{ at: number | null }>`SELECT min(d.next_at) AS at FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND w.disabled = 0`?.at ?? null
    )
  }

  /**
   * Records one attempt: delivered on a 2xx; on a 410 the endpoint disabled and every delivery
   * pending for it failed; otherwise retried on the schedule until a day has passed.
   */
  recordAttempt(
    delivery: DueDelivery,
    result: { ok: boolean; status: number | null; error: string | null; retryAfterS: number | null },
    now: number,
  ): void {
    const attempts = delivery.attempts + 1
    if (result.ok) {
      this.sql.run`UPDATE deliveries SET status = 'delivered', attempts = ${attempts}, last_status = ${result.status},
        last_error = NULL, next_at = NULL WHERE id = ${delivery.id}`
      return
    }
    if (result.status === 410) {
      this.sql.run`UPDATE webhooks SET disabled = 1 WHERE id = ${delivery.webhookId}`
      this.sql.run`UPDATE deliveries SET status = 'failed', attempts = ${attempts}, last_status = 410,
        last_error = 'the receiver answered 410 Gone: the endpoint is disabled', next_at = NULL WHERE id = ${delivery.id}`
      this.sql.run`UPDATE deliveries SET status = 'failed', last_error = 'the endpoint is disabled', next_at = NULL
        WHERE webhook_id = ${delivery.webhookId} AND status = 'pending'`
      return
    }
    if (this.get(delivery.webhookId)?.disabled !== false) {
      // Disabled (or deleted) while this attempt ran: never sent again.
      this.sql.run`UPDATE deliveries SET status = 'failed', attempts = ${attempts}, last_status = ${result.status},
        last_error = 'the endpoint is disabled', next_at = NULL WHERE id = ${delivery.id}`
      return
    }
    const next = nextAttemptAt({ attempts, createdAt: Date.parse(delivery.createdAt), now, retryAfterS: result.retryAfterS })
    const error = next === null ? `${result.error}; given up after ${attempts} attempts` : result.error
    this.sql.run`UPDATE deliveries SET status = ${next === null ? 'failed' : 'pending'}, attempts = ${attempts},
      last_status = ${result.status}, last_error = ${error}, next_at = ${next} WHERE id = ${delivery.id}`
  }

  /** An endpoint's deliveries, newest first (at most `limit`), of one status when given. */
  deliveries(webhookId: string, status: DeliveryStatus | undefined, limit: number): DeliveryJson[] {
    const rows = status
      ? this.sql.all<DeliveryRow>`SELECT * FROM deliveries WHERE webhook_id = ${webhookId} AND status = ${status}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`
      : this.sql.all<DeliveryRow>`SELECT * FROM deliveries WHERE webhook_id = ${webhookId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`
    return rows.map((row) => ({
      id: row.id,
      type: row.type,
      status: row.status,
      attempts: row.attempts,
      lastStatus: row.last_status,
      lastError: row.last_error,
      createdAt: row.created_at,
    }))
  }

  /** Forgets finished deliveries older than a week. */
  prune(now: number): void {
    const before = new Date(now - KEEP_MS).toISOString()
    this.sql.run`DELETE FROM deliveries WHERE status != 'pending' AND created_at < ${before}`
  }
}
