import { ServiceError, sessionNotFound } from '../../contract/errors'
import { newEventId } from '../../contract/ids'
import type {
  CreateSessionInput,
  EventInput,
  ImportLines,
  ImportResultJson,
  PatchSessionInput,
  PinsInput,
  PinsJson,
  RewindInput,
  RewindJson,
  UndoInput,
  UndoJson,
} from '../../contract/schemas'
import type { SessionAddress } from '../../contract/session-address'
import {
  type Notice,
  newCompactionEvent,
  newPinsEvent,
  newRewindEvent,
  type RewindPosition,
  type SessionEvent,
  type TokenEstimator,
  VersionConflictError,
} from '../../core'
import { Sql } from '../sql'
import { SessionAnswers } from './answers'
import { checkAppendInputs, newEventsOf, planAppend } from './append-input'
import { SessionBranches } from './branches'
import { DoorReads } from './door-reads'
import { NOTHING_PINNED, withPinned } from './event-json'
import { type ForkSource, forkEvents, forkRecord, forkSourceOf } from './fork'
import { importEvents } from './import-events'
import { LogIndexes } from './indexes'
import { Lifecycle, type SessionDirectory } from './lifecycle'
import { SessionLog } from './log'
import { newNotice } from './notices'
import { OpenSession, type SessionParts } from './open-session'
import { Outbox } from './outbox'
import { SessionPins } from './pins'
import { planRewind } from './rewind-plan'
import { SessionEnd } from './session-end'
import {
  expiryFrom,
  expiryOf,
  hasExpired,
  type NewSessionInput,
  newRecord,
  type SessionRecord,
  SessionRowCache,
} from './session-row'
import { SessionWriter, type WriteListener } from './session-writer'
import { StepRecords } from './step-records'
import { planUndo } from './undo-plan'
import { SessionUndos } from './undos'
import { ViewCache } from './view-cache'

export interface AppendResult {
  version: number
  events: (SessionEvent & { pinned: boolean })[]
  /** Whether anything new was written (201) or every event was already stored (200). */
  written: boolean
}

/**
 * A session object's storage: the session row, the event log, the cached view, the record of
 * turn steps and the indexes, in the object's SQLite. Each request finds the session once
 * ({@link find}: an expired one is wiped and absent); a request that reads answers from it, one
 * that writes opens it ({@link open}) and hands the {@link OpenSession} to the turn or the pass.
 */
export class StoredSession {
  /** The large answers (log pages, views, results), written from this session's log and view. */
  readonly answers: SessionAnswers
  /** What the doors read of the log by id (see {@link DoorReads}). */
  readonly doorReads: DoorReads
  private readonly parts: SessionParts
  private readonly row: SessionRowCache
  private readonly writer: SessionWriter
  private readonly lifecycle: Lifecycle
  private readonly log: SessionLog
  /** How the session ends: deleted, erased, expired (see {@link SessionEnd}); its alarm. */
  readonly end: SessionEnd

  /** @param idleTtlDefault - SESSION_IDLE_TTL_SECONDS (0: none), read when a session is created without its own. */
  constructor(
    storage: DurableObjectStorage,
    directory: SessionDirectory,
    private readonly estimator: TokenEstimator,
    private readonly idleTtlDefault: () => number = () => 0,
    listener: WriteListener | null = null,
  ) {
    const sql = new Sql(storage.sql)
    const log = new SessionLog(sql)
    const view = new ViewCache(log)
    const indexes = new LogIndexes(sql, (work) => storage.transactionSync(work))
    const row = new SessionRowCache(storage, sql)
    const lifecycle = new Lifecycle(storage, directory, new Outbox(sql, row))
    const branches = new SessionBranches(sql, log)
    const undos = new SessionUndos(sql)
    const pins = new SessionPins(sql, log)
    const writer = new SessionWriter(storage, sql, log, view, indexes, row, lifecycle, branches, undos, pins, listener)
    const answers = new SessionAnswers(log, view, indexes.search, branches, undos, pins)
    this.log = log
    this.row = row
    this.lifecycle = lifecycle
    this.writer = writer
    this.answers = answers
    this.parts = { log, view, steps: new StepRecords(sql, log), indexes, row, writer, answers, branches, pins }
    this.doorReads = new DoorReads(this.parts, () => this.find())
    this.end = new SessionEnd(this.row, this.writer, this.lifecycle)
  }

  /** The session if it exists: an expired one is wiped on the way and is absent; one not yet listed is listed. */
  async find(): Promise<SessionRecord | null> {
    const record = this.row.stored()
    if (!record) return null
    if (hasExpired(record)) {
      await this.end.expired(record)
      return null
    }
    if (!record.indexed) await this.writer.syncIndex(record)
    return this.row.stored()
  }

  /** The session, or 404. */
  async existing(): Promise<SessionRecord> {
    const record = await this.find()
    if (!record) throw sessionNotFound()
    return record
  }

  /** The session for one request that may create it: its first write does (with `created`), when it does not exist. */
  async open(address: SessionAddress, created?: NewSessionInput): Promise<OpenSession> {
    const found = await this.find()
    // The deployment's defaults are read only for a session this request may create.
    return new OpenSession(this.parts, address, found, found ? (created ?? {}) : this.creating(created ?? {}))
  }

  /** The session for one request that needs it to exist, or 404. */
  async openExisting(): Promise<OpenSession> {
    const record = await this.existing()
    return new OpenSession(this.parts, { userId: record.userId, sessionId: record.id }, record)
  }

  async create(address: SessionAddress, input: CreateSessionInput): Promise<SessionRecord> {
    if (await this.find()) throw new ServiceError('session_exists', `session "${address.sessionId}" already exists`)
    return (await this.writer.write(newRecord(address, this.creating(input)), [])).record
  }

  /** What a session is created with: the input, the deployment's idle expiry when it gives none. */
  private creating(input: NewSessionInput): NewSessionInput {
    return input.idleTtlSeconds === undefined ? { ...input, idleTtlSeconds: this.idleTtlDefault() } : input
  }

  async patch(input: PatchSessionInput): Promise<SessionRecord> {
    const record = { ...(await this.existing()) }
    if (input.metadata !== undefined) record.metadata = input.metadata
    if (input.policy !== undefined) record.policy = input.policy
    if (input.ttlSeconds !== undefined) record.fixedExpiresAt = expiryFrom(input.ttlSeconds)
    if (input.idleTtlSeconds !== undefined) record.idleTtlSeconds = input.idleTtlSeconds || null
    record.expiresAt = expiryOf(record)
    this.writer.commit(record, [])
    if (input.ttlSeconds !== undefined || input.idleTtlSeconds !== undefined) {
      await this.lifecycle.schedule(record)
      await this.writer.syncIndex(record) // the directory hides sessions past their expiry: keep it in step
    }
    return record
  }

  /** Records notices with no change to the log (a failure's), or hands them over at once when the session does not exist. */
  notify(userId: string, notices: Notice[]): Promise<void> {
    return this.writer.notify(userId, notices)
  }

  /**
   * Appends events all together or not at all, creating the session when it does not exist. Ids
   * already in the log must carry the same message and come back as stored; `expectedVersion` is
   * checked only when something new is to be written.
   */
  async appendInputs(address: SessionAddress, inputs: EventInput[], expectedVersion?: number): Promise<AppendResult> {
    checkAppendInputs(inputs)
    const existing = await this.find()
    const ids = inputs.flatMap((input) => (input.id === undefined ? [] : [input.id]))
    const plan = planAppend(inputs, existing ? this.log.byIds(ids) : new Map())
    const version = existing?.version ?? 0
    if (plan.fresh.length === 0) return { version, events: this.pinnedNow(plan.answer([])), written: false }
    const events = newEventsOf(plan.fresh, this.estimator)
    const pinned = new Set(events.filter((_, i) => plan.fresh[i]!.pinned === true).map((event) => event.id))
    try {
      // Nothing was awaited since `existing` was read: no other request ran in between.
      const written = await this.writer.write(existing ?? newRecord(address, this.creating({})), events, {
        expectedVersion,
        pinned,
      })
      return { version: written.record.version, events: this.pinnedNow(plan.answer(written.events)), written: true }
    } catch (error) {
      if (error instanceof VersionConflictError) throw new ServiceError('version_conflict', error.message)
      throw error
    }
  }

  /** A `jsonl` import (see {@link importEvents}), creating the session when it does not exist. */
  async importEvents(address: SessionAddress, lines: ImportLines): Promise<ImportResultJson> {
    const creates = this.creating({ metadata: lines.header?.metadata ?? {}, policy: lines.header?.policy ?? null })
    const { created, ...result } = importEvents(this.parts, await this.find(), address, lines, this.estimator, creates)
    if (created) await this.writer.created(this.row.stored()!)
    return result
  }

  /** Events with their pin state now (a boundary or a PINS event is never pinned). */
  private pinnedNow(events: readonly SessionEvent[]) {
    const pinned = this.parts.pins.seqs()
    return events.map((event) => withPinned(event, pinned))
  }

  /** `POST /rewind`: one REWIND naming the view as of the point (see {@link planRewind}); nothing when it would not change. */
  async rewind(input: RewindInput): Promise<RewindJson> {
    const record = await this.existing()
    const point = { to: input.to, position: input.position ?? 'at' }
    const plan = planRewind(this.parts, record, point)
    if (plan.boundary === null) return { rewind: null, abandoned: 0, version: record.version }
    const event = newRewindEvent({ id: newEventId(), timestamp: new Date().toISOString() }, plan.boundary, {
      ...point,
      reason: 'api',
    })
    try {
      const [rewind] = this.writer.commit(record, [event], { expectedVersion: input.expectedVersion, branch: plan.branch })
      return { rewind: withPinned(rewind!, NOTHING_PINNED), abandoned: plan.abandoned, version: rewind!.seq }
    } catch (error) {
      if (error instanceof VersionConflictError) throw new ServiceError('version_conflict', error.message)
      throw error
    }
  }

  /** `POST /compactions/:id/undo`: one COMPACTION naming the view without the pass (see {@link planUndo}). */
  async undo(passId: string, input: UndoInput): Promise<UndoJson> {
    const record = await this.existing()
    const plan = planUndo(this.parts, record, passId)
    const event = newCompactionEvent({ id: newEventId(), timestamp: new Date().toISOString() }, plan.boundary)
    try {
      const [boundary] = this.writer.commit(record, [event], { expectedVersion: input.expectedVersion, undoes: plan.passSeq })
      return { boundary: withPinned(boundary!, NOTHING_PINNED), version: boundary!.seq }
    } catch (error) {
      if (error instanceof VersionConflictError) throw new ServiceError('version_conflict', error.message)
      throw error
    }
  }

  /**
   * `POST /pins`: one PINS event pinning and unpinning messages of the log, nothing else written.
   * An id that is no message of the conversation (unknown, a boundary, a summary, a system
   * message) is a 400 naming it. Answers every message pinned on the lineage now.
   */
  async pin(input: PinsInput): Promise<PinsJson> {
    const record = await this.existing()
    const change = { pin: [...new Set(input.pin ?? [])], unpin: [...new Set(input.unpin ?? [])] }
    for (const [field, ids] of Object.entries(change))
      for (const id of ids) {
        const problem = this.parts.pins.targetProblem(field, id)
        if (problem) throw new ServiceError('invalid_request', problem)
      }
    const event = newPinsEvent({ id: newEventId(), timestamp: new Date().toISOString() }, change)
    try {
      const [pins] = this.writer.commit(record, [event], { expectedVersion: input.expectedVersion })
      const pinned = [...this.parts.pins.pinned()].sort((a, b) => a[1] - b[1]).map(([id]) => id)
      return { pins: withPinned(pins!, NOTHING_PINNED), pinned, version: pins!.seq }
    } catch (error) {
      if (error instanceof VersionConflictError) throw new ServiceError('version_conflict', error.message)
      throw error
    }
  }

  /** What a fork of this session copies (see {@link forkSourceOf}). */
  async forkSource(at: string | undefined, position: RewindPosition): Promise<ForkSource> {
    return forkSourceOf(this.parts, await this.existing(), at, position)
  }

  /** Creates this session as a fork (see {@link forkRecord}). */
  async createFork(address: SessionAddress, fork: ForkSource & { ttlSeconds?: number }): Promise<SessionRecord> {
    if (await this.find()) throw new ServiceError('session_exists', `session "${address.sessionId}" already exists`)
    const creates = this.creating({
      metadata: fork.metadata,
      policy: fork.policy,
      ...(fork.ttlSeconds ? { ttlSeconds: fork.ttlSeconds } : {}),
    })
    const forked = newNotice('session.forked', fork.forkedFrom.sessionId, { forkId: address.sessionId })
    const options = { pinned: new Set(fork.pinned), copied: true, notices: [forked] }
    return (await this.writer.write(forkRecord(address, fork, creates), forkEvents(fork), options)).record
  }
}

export type { ForkSource } from './fork'
