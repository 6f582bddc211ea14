import { newEventId, newSecret } from '../../contract/ids'
import type { SessionAddress } from '../../contract/session-address'
import type { StepRecord, Usage } from '../../contract/turn-result'
import {
  type Calibration,
  type MessageEvent,
  type NewEvent,
  type NewMessageEvent,
  newestTurnSeqs,
  type RecallHit,
  type RewindPoint,
  type RewindReason,
  type SessionEvent,
  type SessionInfo,
  SessionMissingError,
  type ViewSnapshot,
} from '../../core'
import type { StagedBlob } from '../../core/media/blob'
import { type Notice, newNotice, turnNotice, usageEntry } from '../../webhooks'
import type { SessionBlobs } from './blobs'
import { KEEP } from './body-cache'
import type { SessionBranches } from './branches'
import { Incarnation } from './incarnation'
import type { LogIndexes } from './indexes'
import { LateWrites } from './late-writes'
import type { SessionLog } from './log'
import type { SessionPins } from './pins'
import type { PreparedSummaries } from './prepared'
import { promptStateOf } from './prompt-state'
import { ReadMemo } from './read-memo'
import { recallById } from './recall-by-id'
import { withRecentUsage } from './recent-usage'
import { RewindFirst } from './rewind-first'
import { type NewSessionInput, newRecord, type SessionRecord, type SessionRowCache } from './session-row'
import type { SessionWriter } from './session-writer'
import type { StepLog } from './step-log'
import type { SessionUndos } from './undos'
import type { ViewCache } from './view-cache'
import { viewSnapshotOf } from './view-snapshot'

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

/**
 * A session as one request found it (`SessionStorage.open`), for the compaction core's and the
 * chat turn's ports: found once, expiry checked once; each read then takes the session row as it
 * now is — the request's own writes included — as long as it is the same session. One that ended
 * while the request ran (expired, or deleted and perhaps created anew) is never written to again:
 * its writes fail (`SessionEndedError`). A request that found no session creates it with its first write.
 */
export class OpenSession {
  private readonly memo = new ReadMemo()
  private readonly incarnation: Incarnation
  private readonly rewind: RewindFirst
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
    this.incarnation = new Incarnation(parts.row, found)
    this.rewind = new RewindFirst(parts, () => this.memo.clear())
    this.late = new LateWrites(parts, () => this.incarnation.createdAt())
  }

  /** The session row as this request now sees it (null: none yet). */
  record(): SessionRecord | null {
    return this.incarnation.current()
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
    const record = this.incarnation.writable()
    if (!record) return null
    if (record.capsuleKey !== null || !make) return record.capsuleKey
    const capsuleKey = newSecret()
    this.parts.writer.commit({ ...record, capsuleKey }, [])
    return capsuleKey
  }

  /** Where an event of the log stands (null: the log holds none with this id). */
  seqOf(id: string): number | null {
    return this.incarnation.current() ? (this.parts.log.placeOf(id)?.seq ?? null) : null
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
    return this.rewind.begin(this.incarnation.current(), point, reason, field, id)
  }

  // ── the compaction core's store ──────────────────────────────────────────────────────────

  async readView(): Promise<ViewSnapshot> {
    return viewSnapshotOf(this.parts, this.incarnation.current(), this.rewind)
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
    const record = this.incarnation.writable()
    if (!record) throw new SessionMissingError()
    return this.rewind.carrying(events, (all, branch) =>
      this.parts.writer.commit(record, all, { expectedVersion, branch, blobs: this.blobs }),
    )
  }

  // ── the chat turn's session ──────────────────────────────────────────────────────────────

  info(): SessionInfo {
    const record = this.incarnation.current()
    return { id: record?.id ?? this.address.sessionId, metadata: record?.metadata ?? {} }
  }

  async promptState() {
    const record = this.incarnation.current()
    if (!record) return null
    return this.memo.read('promptState', record.version, () => promptStateOf(this.parts, record, this.rewind))
  }

  async stepLog(): Promise<StepLog | null> {
    return this.incarnation.current() ? this.parts.steps : null
  }

  async newestTurn(): Promise<readonly MessageEvent[]> {
    const record = this.incarnation.current()
    if (!record) return []
    return this.memo.read('newestTurn', record.version, () => [
      ...this.parts.view.eventsOf(newestTurnSeqs(this.rewind.viewOf(record)), KEEP.prompt),
    ])
  }

  async recall(query: string, limit: number): Promise<RecallHit[]> {
    const record = this.incarnation.current()
    return record ? this.parts.search.recallHits(record, query, limit) : []
  }

  /**
   * A message by its id, or a tool call's result by the call's id (else the call), whole: cleared,
   * covered or in view, never abandoned. A call's result is looked for a few events after its call
   * (tool ids keep where they were written); for an id written before they did, in the view (where
   * a cleared result is). Null when there is none on the lineage.
   */
  async recallById(id: string): Promise<RecallHit | null> {
    const record = this.incarnation.current()
    return record ? recallById(this.parts, record, () => this.rewind.viewOf(record), id) : null
  }

  /** A blob's bytes for a prompt: the request's own (not stored yet), else the session's; null when neither holds it. */
  blobData(ref: string): Uint8Array | null {
    return this.blobs.get(ref)?.data ?? (this.incarnation.current() ? this.parts.blobs.read(ref) : null)
  }

  usedToolIds(ids: readonly string[]): Set<string> {
    return this.incarnation.current() ? this.parts.indexes.toolIds.used(ids) : new Set()
  }

  async writeTurn(events: NewMessageEvent[], step: StepRecord & { calibration: Calibration }): Promise<SessionEvent[]> {
    const record = this.incarnation.writable() ?? newRecord(this.address, this.created)
    const calibrated = {
      ...record,
      calibration: step.calibration,
      lastUsage: step.usage,
      recentUsage: withRecentUsage(record.recentUsage, step.usage),
    }
    const stepWrite = this.parts.steps.writeOf(step)
    const written = await this.rewind.carrying(events, (all, branch) =>
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
    const record = this.incarnation.writable() ?? newRecord(this.address, this.created)
    const written = await this.rewind.carrying(events, (all, branch) =>
      this.parts.writer.write(record, all, { branch, blobs: this.blobs }),
    )
    return written.events
  }
}
