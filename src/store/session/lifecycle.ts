import { log } from '../../log'
import { userIndexStub } from '../address'
import type { SessionRecord } from './session-row'

/** `expiresAt` for a ttl counted from now; null never expires. */
export const expiryFrom = (ttlSeconds: number | null): string | null =>
  ttlSeconds === null ? null : new Date(Date.now() + ttlSeconds * 1000).toISOString()

/** Whether the session has expired: from that moment it is absent, before any cleanup ran. */
export const hasExpired = (record: SessionRecord): boolean =>
  record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now()

/**
 * A session's life outside its log: the alarm that deletes it at its expiry, its entry in the
 * user's session index (the one place that entry is written), and the wipe that deletes
 * everything it stored.
 */
export class Lifecycle {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly env: Env,
  ) {}

  /** Sets the alarm for the session's expiry, or clears it when the session never expires. */
  async scheduleExpiry(record: SessionRecord): Promise<void> {
    if (record.expiresAt !== null) await this.storage.setAlarm(Date.parse(record.expiresAt))
    else await this.storage.deleteAlarm()
  }

  /**
   * Lists the session in its user's index, or updates its entry (the index hides sessions past
   * their expiry). Answers whether it worked: a failed update is retried on a later request.
   */
  async syncIndex(record: SessionRecord): Promise<boolean> {
    try {
      await userIndexStub(this.env, record.userId).add({
        id: record.id,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
      })
      return true
    } catch (error) {
      log.error('session index update failed', { session: record.id, error: String(error) })
      return false
    }
  }

  /** Deletes everything the session stored, its alarm and its index entry. */
  async wipe(record: SessionRecord): Promise<void> {
    await this.storage.deleteAlarm()
    await this.storage.deleteAll()
    await userIndexStub(this.env, record.userId).remove(record.id, record.createdAt)
  }
}
