import {
  addUsage,
  atSeq,
  isBoundary,
  type NewEvent,
  NO_PINS,
  type SessionEvent,
  SessionWipingError,
  VersionConflictError,
} from '../../core'
import type { StagedBlob } from '../../core/media/blob'
import type { Sql } from '../../sql'
import { boundaryNotices, type Notice } from '../../webhooks'
import type { SessionBlobs } from './blobs'
import type { Branch, SessionBranches } from './branches'
import { eventJson } from './event-json'
import { appendedNow, hasExpired } from './expiry'
import type { LogIndexes } from './indexes'
import type { Lifecycle } from './lifecycle'
import type { SessionLog } from './log'
import type { SessionPins } from './pins'
import { type SessionRecord, type SessionRowCache, writeRecord } from './session-row'
import type { StepWrite } from './step-log'
import { titleAfter } from './title'
import type { SessionUndos } from './undos'

const NONE: ReadonlySet<string> = new Set()

import type { ViewCache } from './view-cache'

/** Who is told of each write once it commits, with the events as the API shows them (live subscribers). */
export interface WriteListener {
  /** Whether anyone listens now (nothing is formatted otherwise). */
  watched(): boolean
  written(events: { seq: number; id: string; json: string }[]): void
  /** The session was deleted. */
  ended(): void
}

/** What a write appends to the session of `record`, with its turn step's record when it is one. */
export interface WriteOptions {
  /** Checked against the record's version before anything is written. */
  expectedVersion?: number
  step?: StepWrite
  /** The branch the write's REWIND abandons, recorded with it. */
  branch?: Branch | null
  /** The seq of the pass the write's COMPACTION undoes, recorded with it. */
  undoes?: number
  /** The ids of the messages it appends pinned. */
  pinned?: ReadonlySet<string>
  /** What the write tells, besides its boundaries' notices (see `./notices`): recorded in its outbox, its usage counted. */
  notices?: readonly Notice[]
  /** Events copied from elsewhere (a fork, an import): their boundaries tell nothing. */
  copied?: boolean
  /** The images and documents the write brings: each stored with the first event that names it. */
  blobs?: ReadonlyMap<string, StagedBlob>
  /** The blobs the session is created with were copied in just before (a fork's): kept. */
  blobsCopied?: boolean
}

const NO_BLOBS: ReadonlyMap<string, StagedBlob> = new Map()

/**
 * The one way a session's storage is written: each write one transaction, version-checked, with
 * the session row, its counters, the indexes and the cached view advanced together; the session
 * listed in its user's directory once it exists, and wiped whole when it ends.
 */
export class SessionWriter {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly sql: Sql,
    private readonly log: SessionLog,
    private readonly view: ViewCache,
    private readonly indexes: LogIndexes,
    private readonly row: SessionRowCache,
    private readonly lifecycle: Lifecycle,
    private readonly branches: SessionBranches,
    private readonly undos: SessionUndos,
    private readonly pins: SessionPins,
    private readonly blobs: SessionBlobs,
    private readonly listener: WriteListener | null = null,
  ) {}

  /**
   * The create-if-absent write: appends to the session of `record` (the stored one, or a new
   * one's: `newRecord`), then, when that created it, arms its expiry and lists it in the user's
   * directory. Answers the events as written and the record after them.
   */
  async write(record: SessionRecord, events: NewEvent[], options: WriteOptions = {}) {
    const created = this.row.stored() === null
    const written = this.commit(record, events, options)
    const stored = this.row.stored()!
    if (created) await this.created(stored)
    return { record: stored, events: written }
  }

  /**
   * The writes `work` makes, together: all of them, or — when it throws — none, and what was
   * cached of them forgotten (read again from storage).
   */
  atomically<T>(work: () => T): T {
    this.held = this.held ?? []
    try {
      const result = this.storage.transactionSync(work)
      const held = this.held
      this.held = null
      for (const events of held) this.listener?.written(events)
      return result
    } catch (error) {
      this.held = null
      this.forgetCached()
      throw error
    }
  }

  /** Forgets what was cached of the session (its row, view, pins, rewinds, indexes): read again from storage. */
  private forgetCached(): void {
    this.row.forget()
    this.view.reset()
    this.pins.reset()
    this.log.rewinds.forget()
    this.indexes.reset()
  }

  /** One write's transaction: when it throws, what was read of its rewinds and pins inside it is forgotten too. */
  private transaction(work: () => void): void {
    try {
      this.storage.transactionSync(work)
    } catch (error) {
      this.log.rewinds.forget()
      this.pins.reset()
      throw error
    }
  }

  /** What the writes of an {@link atomically} told the listener, held until they commit (null: none runs). */
  private held: { seq: number; id: string; json: string }[][] | null = null

  /** What follows a write that created the session: its expiry armed, its directory entry. */
  async created(record: SessionRecord): Promise<void> {
    await this.lifecycle.schedule(record)
    await this.syncIndex(record)
  }

  /**
   * Writes events after the record's version in one transaction, with the session row and its
   * counters; then advances the cached view. Synchronous: nothing can interleave. Throws
   * {@link VersionConflictError} when `expectedVersion` is given and is not the record's.
   */
  commit(record: SessionRecord, events: NewEvent[], options: WriteOptions = {}): SessionEvent[] {
    const { expectedVersion, step, branch, undoes, pinned = NONE, copied = false } = options
    const stored = this.row.stored()
    if (stored !== null && stored.createdAt !== record.createdAt) {
      // An expired incarnation whose wipe could not finish (its user's index out of reach): a
      // new one must not be written over it, nor lose what it still has to hand over.
      throw new SessionWipingError()
    }
    if (expectedVersion !== undefined && expectedVersion !== record.version) {
      throw new VersionConflictError(expectedVersion, record.version)
    }
    this.row.ensureSchema()
    // A session created here holds no blob yet: what a fork's unfinished copy left is not its.
    if (stored === null && !options.blobsCopied) this.blobs.clear()
    // Each part takes its blob's facts; a blob named but neither brought nor held is refused here.
    const media = this.blobs.resolve(events, options.blobs ?? NO_BLOBS)
    const sequenced = media.events.map((event, i) => atSeq(event, record.version + 1 + i))
    const advance = this.view.advance(record, sequenced)
    const boundary = sequenced.findLast(isBoundary)
    const notices = [...(copied ? [] : boundaryNotices(record.id, sequenced)), ...(options.notices ?? [])]
    const next: SessionRecord = {
      ...record,
      version: record.version + sequenced.length,
      boundarySeq: boundary?.seq ?? record.boundarySeq,
      compactions: record.compactions + sequenced.filter((event) => event.type === 'COMPACTION').length,
      rewinds: record.rewinds + sequenced.filter((event) => event.type === 'REWIND').length,
      pinEvents: record.pinEvents + sequenced.filter((event) => event.type === 'PINS').length,
      branches: record.branches + (branch ? 1 : 0),
      // Counted in the transaction, once the pins after the write are recorded.
      stats: record.stats,
      usage: notices.reduce((totals, notice) => (notice.usage ? addUsage(totals, notice.usage) : totals), record.usage),
      notices: record.notices,
      ...(sequenced.length > 0 ? appendedNow(record) : {}),
      ...titleAfter(record, sequenced),
    }
    const columns = step?.columns(sequenced)
    // The pins count in the view's turns only where the write changes them or makes a new view.
    const pinsCount = pinned.size > 0 || boundary !== undefined || sequenced.some((event) => event.type === 'PINS')
    this.transaction(() => {
      next.notices = this.lifecycle.outbox.place(record, notices)
      this.blobs.write(media.write)
      for (const event of sequenced) this.log.insert(event, columns?.get(event.seq) ?? null)
      if (branch) this.branches.record(sequenced.find((event) => event.type === 'REWIND')!.seq, branch)
      if (undoes !== undefined) this.undos.record(sequenced.findLast((event) => event.type === 'COMPACTION')!.seq, undoes)
      if (pinned.size > 0 || sequenced.some((event) => event.type === 'PINS' || event.type === 'REWIND'))
        this.pins.record(sequenced, pinned, next.version)
      next.stats = advance.stats(pinsCount ? this.pins.ofView(next.boundarySeq) : NO_PINS)
      this.indexes.index(sequenced, (ref) => this.blobs.text(ref, options.blobs ?? NO_BLOBS))
      writeRecord(this.sql, next)
      step?.writeRest()
    })
    // Set with no await between: it commits with the write.
    if (notices.length > 0 || this.lifecycle.wants(sequenced)) this.lifecycle.wake()
    this.row.set(next)
    advance.install()
    if (sequenced.length > 0 && this.listener?.watched()) {
      const pinned = this.pins.seqs()
      const events = sequenced.map((event) => ({ seq: event.seq, id: event.id, json: eventJson(event, pinned) }))
      if (this.held) this.held.push(events)
      else this.listener.written(events)
    }
    return sequenced
  }

  /**
   * Records notices with no change to the log, in the session's outbox; when there is no session
   * to hold them (a first turn that failed), hands them over to the user's index object at once.
   */
  async notify(userId: string, notices: readonly Notice[]): Promise<void> {
    const record = this.row.stored()
    if (record && !hasExpired(record)) this.commit(record, [], { notices })
    else await this.lifecycle.tell(userId, [...notices])
  }

  /** Lists the session in the user's directory, and records that it is listed. */
  async syncIndex(record: SessionRecord): Promise<void> {
    if (!(await this.lifecycle.syncIndex(record)) || record.indexed) return
    const current = this.row.stored()
    if (current && current.createdAt === record.createdAt) this.commit({ ...current, indexed: true }, [])
  }

  /**
   * Deletes everything the session stored once `ending` and the outbox are handed over, forgets
   * what was cached of it, and ends its live subscriptions — unless, meanwhile, another wipe did
   * it or a new session took its place.
   */
  async wipe(record: SessionRecord, ending: Notice): Promise<void> {
    const stillThis = () => this.row.stored()?.createdAt === record.createdAt
    if (!(await this.lifecycle.wipe(record, ending, stillThis))) return
    this.forgetCached()
    this.blobs.reset()
    this.listener?.ended()
  }
}
