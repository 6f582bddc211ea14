import { newEventId, newSecret } from '../../contract/ids'
import type { SessionAddress } from '../../contract/session-address'
import type { StepRecord, Usage } from '../../contract/turn-result'
import {
  type Calibration,
  type MessageEvent,
  type NewEvent,
  type NewMessageEvent,
  type NewRewindEvent,
  newestTurnSeqs,
  newRewindEvent,
  PackedColumns,
  type RecallHit,
  type RewindPoint,
  RewindPointError,
  type RewindReason,
  SessionEndedError,
  type SessionEvent,
  type SessionInfo,
  SessionMissingError,
  statsOfColumns,
  summaryInNewestTurn,
  textOf,
  type ViewColumns,
  type ViewSnapshot,
} from '../../core'
import type { StagedBlob } from '../../core/media/blob'
import { type Notice, newNotice, turnNotice, usageEntry } from '../../webhooks'
import type { SessionBlobs } from './blobs'
import type { Branch, SessionBranches } from './branches'
import { hasExpired } from './expiry'
import type { LogIndexes } from './indexes'
import { LateWrites } from './late-writes'
import type { SessionLog } from './log'
import type { SessionPins } from './pins'
import type { PreparedSummaries } from './prepared'
import { recallById } from './recall-by-id'
import { withRecentUsage } from './recent-usage'
import { planRewind } from './rewind-plan'
import { type NewSessionInput, newRecord, type SessionRecord, type SessionRowCache } from './session-row'
import type { SessionWriter } from './session-writer'
import type { StepLog } from './step-log'
import type { SessionUndos } from './undos'
import { KEEP, type ViewCache } from './view-cache'

/** The parts of a session object's storage an open session reads and writes through. */
export interface SessionParts {
  log: SessionLog
  view: ViewCache
  steps: StepLog
  indexes: LogIndexes
  row: SessionRowCache
  writer: SessionWriter
  /** The lineage searched through the full-text index (`store/search`): what `recall_history` finds. */
  search: { recallHits(record: SessionRecord, q: string, limit: number): RecallHit[] }
  branches: SessionBranches
  undos: SessionUndos
  pins: SessionPins
  blobs: SessionBlobs
  prepared: PreparedSummaries
}

const EMPTY_VIEW = new PackedColumns().prefix()

/**
 * A session as one request found it (`SessionStorage.open`), for the compaction core's and the
 * chat turn's ports: found once, expiry checked once; each read then takes the session row as it
 * now is — the request's own writes included — as long as it is the same session. One that ended
 * while the request ran (expired, or deleted and perhaps created anew) is never written to again:
 * its writes fail (`SessionEndedError`). A request that found no session creates it with its first write.
 */
export class OpenSession {
  /** Reads kept until the session's next write (the version they were read at). */
  private readonly memo = new Map<string, unknown>()
  private memoVersion = -1
  /** The session this request works on, by its creation time; null until there is one. */
  private incarnation: string | null
  /** A rewind the request's first write begins with; until then the session reads as its view. */
  private pending: { event: NewRewindEvent; view: ViewColumns; branch: Branch | null } | null = null
  private readonly late: LateWrites

  /** `found`: the session as the request found it (null: it had none). */
  constructor(
    private readonly parts: SessionParts,
    private readonly address: SessionAddress,
    found: SessionRecord | null,
    /** What the session is created with when this request's first write creates it. */
    private readonly created: NewSessionInput = {},
    /** The images and documents the request brought: each stored with the first event its writes name it in. */
    private readonly blobs: ReadonlyMap<string, StagedBlob> = new Map(),
  ) {
    this.incarnation = found?.createdAt ?? null
    this.late = new LateWrites(parts, () => this.incarnation)
  }

  /**
   * The session row now, if it is the session the request works on: the one it found, else the
   * first it sees (created by its own write, or by another request meanwhile).
   */
  private current(): SessionRecord | null {
    const now = this.parts.row.stored()
    if (this.incarnation === null) {
      if (now) this.incarnation = now.createdAt
      return now
    }
    if (now === null || now.createdAt !== this.incarnation) throw new SessionEndedError()
    return now
  }

  /** The session a write goes to: the current one, unless it has expired meanwhile (null: none yet, the write creates it). */
  private writable(): SessionRecord | null {
    const record = this.current()
    if (record && hasExpired(record)) throw new SessionEndedError()
    return record
  }

  /** A read of this request, kept until the session's next write. */
  private memoized<T>(key: string, version: number, read: () => T): T {
    if (version !== this.memoVersion) {
      this.memo.clear()
      this.memoVersion = version
    }
    if (!this.memo.has(key)) this.memo.set(key, read())
    return this.memo.get(key) as T
  }

  /** The session row as this request now sees it (null: none yet). */
  record(): SessionRecord | null {
    return this.current()
  }

  /** Whether the session wants a title from the summary model: none of its client's or a model's yet. */
  titleWanted(): boolean {
    const source = this.parts.row.stored()?.titleSource ?? null
    return source === null || source === 'first_message'
  }

  /** What the request's background tasks write after it (see {@link LateWrites}). */
  noteBackgroundPass(failure: { code: string; message: string } | null): void {
    this.late.noteBackgroundPass(failure)
  }

  titled(title: string): void {
    this.late.titled(title)
  }

  get prepared(): LateWrites['prepared'] {
    return this.late.prepared
  }

  /** Records notices with no change to the log (see `SessionStorage.notify`). */
  notify(notices: Notice[]): Promise<void> {
    return this.parts.writer.notify(this.address.userId, notices)
  }

  spent(model: string, usage: Usage | null, kind: 'turn' | 'summary'): Promise<void> {
    return this.notify([newNotice('usage.recorded', this.address.sessionId, {}, usageEntry(model, usage, kind))])
  }

  /** The secret the session's compaction capsules are signed with, made and stored now if `make` and there is none; null while there is none. */
  capsuleKey(make: boolean): string | null {
    const record = this.writable()
    if (!record) return null
    if (record.capsuleKey !== null || !make) return record.capsuleKey
    const capsuleKey = newSecret()
    this.parts.writer.commit({ ...record, capsuleKey }, [])
    return capsuleKey
  }

  /** Where an event of the log stands (null: the log holds none with this id). */
  seqOf(id: string): number | null {
    return this.current() ? (this.parts.log.placeOf(id)?.seq ?? null) : null
  }

  /**
   * Takes the view back to a point for this request (see `planRewind`; `field` names the point
   * in a `RewindPointError`): from now on it reads as the view as of the point, and its first write begins with
   * the REWIND, so nothing is written if it writes nothing. Answers what the rewind abandons, or
   * null when the view would not change (no REWIND then).
   *
   * @example
   * await session.rewindFirst({ to: 'evt_3', position: 'before' }, 'edit', 'rewind.to')
   */
  rewindFirst(point: RewindPoint, reason: RewindReason, field: string, id = newEventId()): { abandoned: number } | null {
    const record = this.current()
    if (!record) {
      if (point.to === null) return null
      throw new RewindPointError(`${field}: no event ${JSON.stringify(point.to)} in this session`)
    }
    const plan = planRewind(this.parts, record, point, field)
    if (plan.boundary === null) return null
    const view = new PackedColumns()
    for (const entry of plan.restored) view.push(entry)
    const event = newRewindEvent({ id, timestamp: new Date().toISOString() }, plan.boundary, { ...point, reason })
    this.pending = { event, view: view.prefix(), branch: plan.branch }
    this.memo.clear()
    return { abandoned: plan.abandoned }
  }

  /** A write of these events, the pending rewind first (with its branch); then the session reads as stored again. */
  private async carryingRewind<T>(events: NewEvent[], write: (events: NewEvent[], branch: Branch | null) => T | Promise<T>) {
    const pending = this.pending
    const result = await write(pending ? [pending.event, ...events] : events, pending?.branch ?? null)
    this.pending = null
    this.memo.clear()
    return result
  }

  /** The view a read of this request sees: the pending rewind's, else the session's. */
  private viewOf(record: SessionRecord): ViewColumns {
    return this.pending?.view ?? this.parts.view.snapshot(record)
  }

  // ── the compaction core's store ──────────────────────────────────────────────────────────

  async readView(): Promise<ViewSnapshot> {
    const record = this.current()
    if (!record) return { view: EMPTY_VIEW, version: 0 }
    // With a rewind pending, its boundary holds what the view holds; the pins are the session's
    // until the rewind is written (one it abandons still counts: a pass then keeps more, never less).
    const held = this.pending?.event.boundary.held ?? (this.pending ? [] : undefined)
    // A pending rewind's clearing is known by id only (its seqs unknown: a clearing then reads every tool message).
    const clearing = this.pending ? { cleared: this.pending.event.boundary.cleared ?? [] } : this.parts.view.clearedOf(record)
    return {
      view: this.viewOf(record),
      version: record.version,
      pins: this.parts.pins.ofView(record.boundarySeq, held),
      ...(clearing.cleared.length > 0 ? { cleared: clearing.cleared } : {}),
      ...('seqs' in clearing ? { clearedSeqs: clearing.seqs } : {}),
    }
  }

  async readSince(version: number): Promise<SessionEvent[]> {
    return this.parts.log.after(version)
  }

  /** Whole events for a prompt or a summary: bounded by a model's context, kept for the next turn. */
  async readEvents(seqs: Int32Array): Promise<MessageEvent[]> {
    return [...this.parts.view.eventsOf(seqs, KEEP.prompt)]
  }

  async readIds(seqs: Int32Array): Promise<string[]> {
    return this.parts.view.named(seqs).map((entry) => entry.id)
  }

  async append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]> {
    const record = this.writable()
    if (!record) throw new SessionMissingError()
    return this.carryingRewind(events, (all, branch) =>
      this.parts.writer.commit(record, all, { expectedVersion, branch, blobs: this.blobs }),
    )
  }

  // ── the chat turn's session ──────────────────────────────────────────────────────────────

  info(): SessionInfo {
    const record = this.current()
    return { id: record?.id ?? this.address.sessionId, metadata: record?.metadata ?? {} }
  }

  async promptState() {
    const record = this.current()
    if (!record) return null
    return this.memoized('promptState', record.version, () => {
      const stats = this.pending ? statsOfColumns(this.pending.view) : record.stats
      const latest = stats.latestSystem
      const system = latest ? this.parts.view.event(latest.seq) : null
      const columns = this.viewOf(record)
      return {
        policy: record.policy,
        viewTokens: stats.viewTokens,
        calibration: record.calibration,
        latestSystem: latest && system ? { tokens: latest.tokens, content: textOf(system.message.content) } : null,
        recallNeeded:
          (this.pending?.event.boundary.cleared ?? this.parts.view.clearedOf(record).cleared).length > 0 ||
          summaryInNewestTurn(columns),
      }
    })
  }

  async stepLog(): Promise<StepLog | null> {
    return this.current() ? this.parts.steps : null
  }

  async newestTurn(): Promise<readonly MessageEvent[]> {
    const record = this.current()
    if (!record) return []
    return this.memoized('newestTurn', record.version, () => [
      ...this.parts.view.eventsOf(newestTurnSeqs(this.viewOf(record)), KEEP.prompt),
    ])
  }

  async recall(query: string, limit: number): Promise<RecallHit[]> {
    const record = this.current()
    return record ? this.parts.search.recallHits(record, query, limit) : []
  }

  /**
   * A message by its id, or a tool call's result by the call's id (else the call), whole: cleared,
   * covered or in view, never abandoned. A call's result is looked for a few events after its call
   * (tool ids keep where they were written); for an id written before they did, in the view (where
   * a cleared result is). Null when there is none on the lineage.
   */
  async recallById(id: string): Promise<RecallHit | null> {
    const record = this.current()
    return record ? recallById(this.parts, record, () => this.viewOf(record), id) : null
  }

  /** A blob's bytes for a prompt: the request's own (not stored yet), else the session's; null when neither holds it. */
  blobData(ref: string): Uint8Array | null {
    return this.blobs.get(ref)?.data ?? (this.current() ? this.parts.blobs.read(ref) : null)
  }

  usedToolIds(ids: readonly string[]): Set<string> {
    return this.current() ? this.parts.indexes.toolIds.used(ids) : new Set()
  }

  async writeTurn(events: NewMessageEvent[], step: StepRecord & { calibration: Calibration }): Promise<SessionEvent[]> {
    const record = this.writable() ?? newRecord(this.address, this.created)
    const calibrated = {
      ...record,
      calibration: step.calibration,
      lastUsage: step.usage,
      recentUsage: withRecentUsage(record.recentUsage, step.usage),
    }
    const stepWrite = this.parts.steps.writeOf(step)
    const written = await this.carryingRewind(events, (all, branch) =>
      this.parts.writer.write(calibrated, all, {
        step: stepWrite,
        branch,
        notices: [turnNotice(record.id, all, step)],
        blobs: this.blobs,
      }),
    )
    return written.events
  }

  async writeHistory(events: NewMessageEvent[]): Promise<SessionEvent[]> {
    const record = this.writable() ?? newRecord(this.address, this.created)
    const written = await this.carryingRewind(events, (all, branch) =>
      this.parts.writer.write(record, all, { branch, blobs: this.blobs }),
    )
    return written.events
  }
}
