import { ServiceError, sessionNotFound } from '../../contract/errors'
import type { CreateSessionInput, EventInput, PatchSessionInput } from '../../contract/schemas'
import type { SessionAddress } from '../../contract/session-address'
import type { StepRecord } from '../../contract/turn-result'
import {
  atSeq,
  type Calibration,
  ftsExpression,
  type MessageEvent,
  type NewEvent,
  type NewMessageEvent,
  newestTurnSeqs,
  PackedColumns,
  type SessionEvent,
  type SessionInfo,
  type TokenEstimator,
  VersionConflictError,
  type ViewSnapshot,
} from '../../core'
import { Sql } from '../sql'
import { SessionAnswers } from './answers'
import { checkAppendInputs, newEventsOf, planAppend } from './append-input'
import { LogIndexes } from './indexes'
import { Lifecycle, type SessionDirectory } from './lifecycle'
import { SessionLog } from './log'
import { expiryFrom, hasExpired, newRecord, type SessionRecord, SessionRowCache, writeRecord } from './session-row'
import { StepRecords, type StepWrite } from './step-records'
import { KEEP, ViewCache } from './view-cache'

export interface AppendResult {
  version: number
  events: SessionEvent[]
  /** Whether anything new was written (201) or every event was already stored (200). */
  written: boolean
}

const EMPTY_VIEW = new PackedColumns().prefix()
/**
 * The session as this object stores it: the session row, the event log, the cached view and the
 * record of turn steps, in the object's SQLite storage. Every write goes through {@link commit}:
 * one transaction, version-checked, counters and view advanced together. It is the storage the
 * compaction core and the chat turn work through (their ports: the core's `SessionStore`, the
 * turn's `TurnSession`).
 */
export class StoredSession {
  private readonly sql: Sql
  private readonly log: SessionLog
  private readonly view: ViewCache
  private readonly steps: StepRecords
  private readonly indexes: LogIndexes
  private readonly lifecycle: Lifecycle
  private readonly row: SessionRowCache
  /** The large answers (log pages, views, results), written from this session's log and view. */
  readonly answers: SessionAnswers
  /** Who this object is for: set by the first call that may create the session (the object's name says the same). */
  private address: SessionAddress | null = null

  constructor(
    private readonly storage: DurableObjectStorage,
    directory: SessionDirectory,
    private readonly estimator: TokenEstimator,
  ) {
    this.sql = new Sql(storage.sql)
    this.log = new SessionLog(this.sql)
    this.view = new ViewCache(this.log)
    this.steps = new StepRecords(this.sql, this.log)
    this.indexes = new LogIndexes(this.sql, this.log, (work) => storage.transactionSync(work))
    this.lifecycle = new Lifecycle(storage, directory)
    this.row = new SessionRowCache(storage, this.sql)
    this.answers = new SessionAnswers(this.log, this.view, this.indexes.search)
  }

  /** Tells the object which session it is for; calls that may create the session pass it. */
  addressedAs(address: SessionAddress): this {
    this.address = address
    return this
  }

  // ── the session row ──────────────────────────────────────────────────────────────────────

  /** The session if it exists; an expired one is wiped on the way and is absent. */
  async current(): Promise<SessionRecord | null> {
    const record = this.row.stored()
    if (!record) return null
    if (hasExpired(record)) {
      await this.wipe(record)
      return null
    }
    if (!record.indexed) await this.syncIndex(record)
    this.indexes.search.caughtUp().catch(() => undefined) // an older log is indexed in the background (a search retries)
    return this.row.stored()
  }

  /** The session, or 404. */
  async existing(): Promise<SessionRecord> {
    const record = await this.current()
    if (!record) throw sessionNotFound()
    return record
  }

  async create(input: CreateSessionInput): Promise<SessionRecord> {
    if (await this.current())
      throw new ServiceError('session_exists', `session "${this.addressOrThrow().sessionId}" already exists`)
    return (await this.writeCreating(newRecord(this.addressOrThrow(), input), [])).record
  }

  async patch(input: PatchSessionInput): Promise<SessionRecord> {
    const record = { ...(await this.existing()) }
    if (input.metadata !== undefined) record.metadata = input.metadata
    if (input.policy !== undefined) record.policy = input.policy
    if (input.ttlSeconds !== undefined) record.expiresAt = expiryFrom(input.ttlSeconds)
    this.commit(record, [])
    if (input.ttlSeconds !== undefined) {
      await this.lifecycle.scheduleExpiry(record)
      await this.syncIndex(record) // the index hides sessions past their expiry: keep it in step
    }
    return record
  }

  async destroy(): Promise<void> {
    await this.wipe(await this.existing())
  }

  /** Deletes the session once it has expired; idempotent, and reschedules itself if early. */
  async expire(): Promise<void> {
    const record = this.row.stored()
    if (!record || record.expiresAt === null) return
    if (hasExpired(record)) await this.wipe(record)
    else await this.lifecycle.scheduleExpiry(record)
  }

  // ── the log ──────────────────────────────────────────────────────────────────────────────

  /**
   * Appends events all together or not at all, creating the session when it does not exist. Ids
   * already in the log must carry the same message and come back as stored; `expectedVersion` is
   * checked only when something new is to be written.
   */
  async appendInputs(inputs: EventInput[], expectedVersion?: number): Promise<AppendResult> {
    checkAppendInputs(inputs)
    const existing = await this.current()
    const ids = inputs.flatMap((input) => (input.id === undefined ? [] : [input.id]))
    const plan = planAppend(inputs, existing ? this.log.byIds(ids) : new Map())
    const version = existing?.version ?? 0
    if (plan.fresh.length === 0) return { version, events: plan.answer([]), written: false }
    const events = newEventsOf(plan.fresh, this.estimator)
    try {
      // Nothing was awaited since `existing` was read: no other request ran in between.
      const written = await this.writeCreating(existing ?? newRecord(this.addressOrThrow(), {}), events, { expectedVersion })
      return { version: written.version, events: plan.answer(written.events), written: true }
    } catch (error) {
      if (error instanceof VersionConflictError) throw new ServiceError('version_conflict', error.message)
      throw error
    }
  }

  // ── the ports: the compaction core's store and the chat turn's session ────────────────────

  async readView(): Promise<ViewSnapshot> {
    const record = await this.current()
    return record ? { view: this.view.snapshot(record), version: record.version } : { view: EMPTY_VIEW, version: 0 }
  }

  readSince = async (version: number): Promise<SessionEvent[]> => this.log.after(version)

  listed = (seqs: Int32Array): Int32Array => seqs // a result's answer is written from storage by seq

  /** Whole events for a prompt or a summary: bounded by a model's context, kept for the next turn. */
  async readEvents(seqs: Int32Array): Promise<MessageEvent[]> {
    return [...this.view.eventsOf(seqs, KEEP.prompt)]
  }

  async readIds(seqs: Int32Array): Promise<string[]> {
    return this.view.named(seqs).map((entry) => entry.id)
  }

  async append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]> {
    return this.commit(await this.existing(), events, expectedVersion)
  }

  info(): SessionInfo {
    const record = this.row.stored()
    return { id: record?.id ?? this.addressOrThrow().sessionId, metadata: record?.metadata ?? {} }
  }

  async promptState() {
    const record = await this.current()
    if (!record) return null
    const latest = record.stats.latestSystem
    const system = latest ? this.view.event(latest.seq) : null
    return {
      policy: record.policy,
      viewTokens: record.stats.viewTokens,
      calibration: record.calibration,
      latestSystem: latest && system ? { tokens: latest.tokens, content: system.message.content ?? '' } : null,
    }
  }

  async stepLog(): Promise<StepRecords | null> {
    return (await this.current()) ? this.steps : null
  }

  async newestTurn(): Promise<MessageEvent[]> {
    return this.readEvents(newestTurnSeqs((await this.readView()).view))
  }

  async recall(query: string, limit: number) {
    const [record, expression] = [await this.current(), ftsExpression(query)]
    return record && expression ? this.answers.recallHits(record, expression, limit) : []
  }

  usedToolIds(ids: readonly string[]): Set<string> {
    return this.row.stored() ? this.indexes.toolIds.used(ids) : new Set()
  }

  async writeTurn(events: NewMessageEvent[], step: StepRecord & { calibration: Calibration }): Promise<SessionEvent[]> {
    const record = (await this.current()) ?? newRecord(this.addressOrThrow(), {})
    const calibrated = { ...record, calibration: step.calibration, lastUsage: step.usage }
    return (await this.writeCreating(calibrated, events, { step: this.steps.writeOf(step) })).events
  }

  async writeHistory(events: NewMessageEvent[]): Promise<SessionEvent[]> {
    const record = (await this.current()) ?? newRecord(this.addressOrThrow(), {})
    return (await this.writeCreating(record, events)).events
  }

  // ── writing ──────────────────────────────────────────────────────────────────────────────

  /**
   * The one create-if-absent write: appends to the session of `record` (the stored one, or a new
   * one's: `newRecord`), then, when that created it, arms its expiry and lists it in the user's index.
   */
  private async writeCreating(
    record: SessionRecord,
    events: NewEvent[],
    options: { expectedVersion?: number; step?: StepWrite } = {},
  ): Promise<{ record: SessionRecord; events: SessionEvent[]; version: number }> {
    const created = this.row.stored() === null
    const written = this.commit(record, events, options.expectedVersion, options.step)
    record = this.row.stored()!
    if (created) {
      await this.lifecycle.scheduleExpiry(record)
      await this.syncIndex(record)
    }
    return { record, events: written, version: record.version }
  }

  /**
   * Writes events after the record's version in one transaction, with the session row and its
   * counters; then advances the cached view. Synchronous: nothing can interleave. Throws
   * {@link VersionConflictError} when `expectedVersion` is given and is not the record's.
   */
  private commit(record: SessionRecord, events: NewEvent[], expectedVersion?: number, step?: StepWrite): SessionEvent[] {
    if (expectedVersion !== undefined && expectedVersion !== record.version) {
      throw new VersionConflictError(expectedVersion, record.version)
    }
    const sequenced = events.map((event, i) => atSeq(event, record.version + 1 + i))
    const advance = this.view.advance(record, sequenced)
    const boundary = sequenced.findLast((event) => event.type === 'COMPACTION')
    const next: SessionRecord = {
      ...record,
      version: record.version + sequenced.length,
      boundarySeq: boundary?.seq ?? record.boundarySeq,
      compactions: record.compactions + sequenced.filter((event) => event.type === 'COMPACTION').length,
      stats: advance.stats,
    }
    this.row.ensureSchema()
    const columns = step?.columns(sequenced)
    this.storage.transactionSync(() => {
      for (const event of sequenced) this.log.insert(event, columns?.get(event.seq) ?? null)
      this.indexes.record(sequenced)
      writeRecord(this.sql, next)
      step?.record()
    })
    this.row.set(next)
    advance.install()
    return sequenced
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Lists the session in the user's index, and records that it is listed. */
  private async syncIndex(record: SessionRecord): Promise<void> {
    if (!(await this.lifecycle.syncIndex(record)) || record.indexed) return
    const current = this.row.stored()
    if (current && current.createdAt === record.createdAt) this.commit({ ...current, indexed: true }, [])
  }

  private async wipe(record: SessionRecord): Promise<void> {
    await this.lifecycle.wipe(record)
    this.row.forget()
    this.view.reset()
  }

  private addressOrThrow(): SessionAddress {
    if (!this.address) throw new Error('the session object was not told its address before a write')
    return this.address
  }
}
