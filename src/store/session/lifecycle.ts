import { log } from '../../log'
import type { SessionRecord } from './session-row'

/** Where a user's sessions are listed (their index object): the one place outside itself a session writes to. */
export interface SessionDirectory {
  /** Lists the session, or updates its entry (its expiry). */
  list(session: Pick<SessionRecord, 'userId' | 'id' | 'createdAt' | 'expiresAt'>): Promise<void>
  /** Removes the entry of this incarnation of the session (same creation time). */
  unlist(session: Pick<SessionRecord, 'userId' | 'id' | 'createdAt'>): Promise<void>
}

/**
 * A session's life outside its log: the alarm that deletes it at its expiry, its entry in the
 * user's session directory (the one place that entry is written), and the wipe that deletes
 * everything it stored.
 */
export class Lifecycle {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly directory: SessionDirectory,
  ) {}

  /** Sets the alarm for the session's expiry, or clears it when the session never expires. */
  async scheduleExpiry(record: SessionRecord): Promise<void> {
    if (record.expiresAt !== null) await this.storage.setAlarm(Date.parse(record.expiresAt))
    else await this.storage.deleteAlarm()
  }

  /**
   * Lists the session in its user's directory, or updates its entry (the directory hides sessions
   * past their expiry). Answers whether it worked: a failed update is retried on a later request.
   */
  async syncIndex(record: SessionRecord): Promise<boolean> {
    try {
      // An idle expiry moves with every append: the directory is not told of each move, so it
      // lists the session until the alarm deletes it (or its fixed expiry passes).
      await this.directory.list(record.idleTtlSeconds === null ? record : { ...record, expiresAt: record.fixedExpiresAt })
      return true
    } catch (error) {
      log.error('session index update failed', { session: record.id, error: String(error) })
      return false
    }
  }

  /** Deletes everything the session stored, its alarm and its directory entry. */
  async wipe(record: SessionRecord): Promise<void> {
    await this.storage.deleteAlarm()
    await this.storage.deleteAll()
    await this.directory.unlist(record)
  }
}
