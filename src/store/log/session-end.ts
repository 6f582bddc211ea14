import { log } from '../../log'
import { type Notice, newNotice } from '../../webhooks'
import { hasExpired } from './expiry'
import type { Lifecycle } from './lifecycle'
import type { SessionRecord, SessionRowCache } from './session-row'
import type { SessionWriter } from './session-writer'

/** A hand-over of the outbox, or a wipe, that failed is tried again this much later. */
const RETRY_MS = 30_000

/** What a session's end tells: erased by its user, or expired. */
const endingOf = (record: SessionRecord): Notice => ({
  ...newNotice(record.erased ? 'session.deleted' : 'session.expired', record.id),
  // One id per incarnation: two wipes racing, or one retried after a crash, tell it once.
  id: `ntc_end_${record.id}_${record.createdAt}`,
})

/**
 * How a session ends — deleted by its user, erased with all of theirs, or expired — each telling
 * its last notices before its storage is wiped; and its alarm, which hands its outbox over and
 * wipes it once it has expired. A wipe that cannot finish (the user's index out of reach) is
 * retried by the alarm; meanwhile the session is absent.
 *
 * @example
 * const end = new SessionEnd(row, writer, lifecycle)
 * await end.alarm()
 */
export class SessionEnd {
  constructor(
    private readonly row: SessionRowCache,
    private readonly writer: SessionWriter,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Wipes a session a read found expired; one that fails is left to the alarm (the session reads as absent either way). */
  async expired(record: SessionRecord): Promise<void> {
    await this.writer.wipe(record, endingOf(record)).catch(async (error: unknown) => {
      log.error('wiping an expired session failed; the alarm retries', { session: record.id, error: String(error) })
      await this.lifecycle.schedule(record, Date.now() + RETRY_MS)
    })
  }

  /** `DELETE /v1/sessions/:id`: wiped now, `session.deleted` told first. */
  destroy(record: SessionRecord): Promise<void> {
    return this.writer.wipe(record, newNotice('session.deleted', record.id))
  }

  /** Erases this incarnation of the session (its user erased everything): absent at once, wiped by its alarm. */
  async erase(createdAt: string): Promise<void> {
    const record = this.row.stored()
    if (!record || record.createdAt !== createdAt || hasExpired(record)) return
    const now = new Date().toISOString()
    this.writer.commit({ ...record, fixedExpiresAt: now, idleTtlSeconds: null, expiresAt: now, erased: true }, [])
    await this.lifecycle.schedule(this.row.stored()!)
  }

  /**
   * The alarm: the outbox handed over to the user's index object (again in 30 s when that
   * failed), then the session deleted if it has expired, else the alarm set for what is next.
   * Idempotent: an early or repeated alarm does no harm.
   */
  async alarm(): Promise<void> {
    this.lifecycle.fired()
    const record = this.row.stored()
    if (!record) return
    let retryAt: number | null = null
    try {
      await this.lifecycle.handOver(record)
    } catch (error) {
      log.error('handing the outbox over failed; retrying', { session: record.id, error: String(error) })
      retryAt = Date.now() + RETRY_MS
    }
    const now = this.row.stored()
    if (!now) return
    if (!hasExpired(now)) return this.lifecycle.schedule(now, retryAt)
    try {
      await this.writer.wipe(now, endingOf(now))
    } catch (error) {
      // An alarm that throws is retried a few times, then dropped: this one sets itself again.
      log.error('wiping an expired session failed; retrying', { session: now.id, error: String(error) })
      await this.lifecycle.schedule(now, Date.now() + RETRY_MS)
    }
  }
}
