import type { SessionEvent } from '../../core'
import { log } from '../../log'
import type { Notice } from '../../webhooks'
import { hasExpired } from './expiry'
import type { Outbox } from './outbox'
import type { SessionRecord } from './session-row'

/** Where a user's sessions are listed (their index object): the one place outside itself a session writes to. */
export interface SessionDirectory {
  /** Lists the session, or updates its entry (its expiry, last append, title, metadata). */
  list(
    session: Pick<
      SessionRecord,
      'userId' | 'id' | 'createdAt' | 'expiresAt' | 'lastAppendAt' | 'title' | 'firstMessage' | 'metadata' | 'forkedFrom'
    >,
  ): Promise<void>
  /** Removes the entry of this incarnation of the session (same creation time), handing over its last notices. */
  unlist(session: Pick<SessionRecord, 'userId' | 'id' | 'createdAt'>, notices: Notice[]): Promise<void>
  /** Hands notices over to the user's index object (it takes each once). */
  tell(userId: string, notices: Notice[]): Promise<void>
}

/**
 * Something else a session hands over from its alarm, after its notices (its events, to its
 * user's search across sessions): whether it waits, whether a write's events give it work (the
 * alarm is then set, as for notices), and the hand-over itself (throws when it could not).
 */
export interface HandOver {
  waiting(record: SessionRecord): boolean
  wants(events: readonly SessionEvent[]): boolean
  run(record: SessionRecord): Promise<void>
}

/** What of a record its directory entry holds, as one string: a change of it is listed again. */
const listingOf = (record: SessionRecord) =>
  JSON.stringify([
    record.createdAt,
    record.lastAppendAt,
    record.title,
    record.firstMessage,
    record.metadata,
    record.fixedExpiresAt,
  ])

/** Notices handed over at once. */
const HANDOVER_BATCH = 100

/** How long after a write its notices are handed over (webhooks and usage follow within this). */
const HANDOVER_DELAY_MS = 200

/**
 * A session's life outside its log: the alarm — that deletes it at its expiry and hands its
 * outbox over — its entry in the user's session directory (the one place that entry is
 * written), and the wipe that deletes everything it stored.
 */
export class Lifecycle {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly directory: SessionDirectory,
    readonly outbox: Outbox,
    private readonly also: HandOver | null = null,
  ) {}

  /**
   * Whether a write of these events has something handed over from the alarm besides its
   * notices: any event updates the session's entry in its user's directory (its last append,
   * maybe its title), and maybe the search across sessions.
   */
  wants(events: readonly SessionEvent[]): boolean {
    return events.length > 0 || (this.also?.wants(events) ?? false)
  }

  /** The entry this instance last listed (what a listing filters by), so that an unchanged one is not sent again. */
  private listed: string | null = null

  /** When the alarm is set for, as this object set it (null: not set, or not known since it last fired). */
  private armedAt: number | null = null

  /**
   * Sets the alarm to hand the outbox over soon: a write recorded notices (called right after it,
   * so the two commit together). The short wait lets the write's answer go out first and gathers
   * a busy session's notices into one hand-over; an alarm set sooner is left as it is.
   */
  wake(): void {
    const now = Date.now()
    const at = now + HANDOVER_DELAY_MS
    // An alarm known to be set, not yet due, and soon enough stays (one that should have fired by now may never have been set).
    if (this.armedAt !== null && now <= this.armedAt && this.armedAt <= at) return
    this.armedAt = at
    this.storage.setAlarm(at).catch((error: unknown) => {
      this.armedAt = null
      log.error('setting the alarm failed', { error: String(error) })
    })
  }

  /** The alarm fired: it is set no more until it sets itself again. */
  fired(): void {
    this.armedAt = null
  }

  /**
   * Sets the alarm for the session's expiry, or for `soonest` (a hand-over to retry), or for now
   * while notices wait — whichever is first; clears it when there is nothing to do.
   */
  async schedule(record: SessionRecord, soonest: number | null = null): Promise<void> {
    const waiting = soonest ?? (this.outbox.pending() || this.also?.waiting(record) ? Date.now() : null)
    // A retry waits its time, also for an expiry already past.
    const expiry = record.expiresAt === null ? null : Math.max(Date.parse(record.expiresAt), soonest ?? 0)
    const times = [expiry, waiting].filter((at) => at !== null)
    this.armedAt = times.length > 0 ? Math.min(...times) : null
    if (this.armedAt !== null) await this.storage.setAlarm(this.armedAt)
    else await this.storage.deleteAlarm()
  }

  /**
   * Hands the outbox over to the user's index object, batch by batch, each dropped once taken,
   * then what else waits (see {@link HandOver}); throws when it could not.
   */
  async handOver(record: SessionRecord): Promise<void> {
    // The directory's entry after the writes: their last append, the title they gave.
    if (!hasExpired(record) && this.listed !== listingOf(record) && !(await this.syncIndex(record))) {
      throw new Error('the directory is out of reach')
    }
    for (;;) {
      const { notices, mark } = this.outbox.batch(HANDOVER_BATCH)
      if (notices.length === 0) break
      await this.directory.tell(record.userId, notices)
      this.outbox.drop(record, mark)
      // A write during the hand-over sets the alarm again: what it recorded goes then.
      if (notices.length < HANDOVER_BATCH) break
    }
    if (this.also?.waiting(record)) await this.also.run(record)
  }

  /** Hands notices over without the outbox (there is no session to hold them: a turn that failed before creating it). */
  tell(userId: string, notices: Notice[]): Promise<void> {
    return this.directory.tell(userId, notices)
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
      this.listed = listingOf(record)
      return true
    } catch (error) {
      log.error('session index update failed', { session: record.id, error: String(error) })
      return false
    }
  }

  /**
   * Deletes everything the session stored and its alarm, once its directory entry is removed and
   * its last notices (the outbox, and `ending`) handed over — also those written meanwhile: from
   * the last look at the outbox to the deletion nothing is awaited. When the hand-over fails,
   * nothing is deleted; when `stillThis` says the session is gone or another (a wipe that ran
   * meanwhile, a session created since), nothing is either. Answers whether it deleted.
   */
  async wipe(record: SessionRecord, ending: Notice, stillThis: () => boolean): Promise<boolean> {
    let { notices, mark } = this.outbox.batch(Number.MAX_SAFE_INTEGER)
    await this.directory.unlist(record, [...notices, ending])
    for (;;) {
      if (!stillThis()) return false
      ;({ notices, mark } = this.outbox.batch(Number.MAX_SAFE_INTEGER, mark))
      if (notices.length === 0) break
      await this.directory.tell(record.userId, notices)
    }
    void this.storage.deleteAlarm()
    this.armedAt = null
    await this.storage.deleteAll()
    return true
  }
}
