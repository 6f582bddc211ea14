import { ServiceError, sessionNotFound } from '../../contract/errors'
import type { SessionAddress } from '../../contract/session-address'
import type { StepRecord } from '../../contract/turn-result'
import {
  type Calibration,
  type MessageEvent,
  type NewEvent,
  type NewMessageEvent,
  newestTurnSeqs,
  PackedColumns,
  type RecallHit,
  type SessionEvent,
  type SessionInfo,
  type ViewSnapshot,
} from '../../core'
import type { SessionAnswers } from './answers'
import type { LogIndexes } from './indexes'
import type { SessionLog } from './log'
import { hasExpired, newRecord, type SessionRecord, type SessionRowCache } from './session-row'
import type { SessionWriter } from './session-writer'
import type { StepRecords } from './step-records'
import { KEEP, type ViewCache } from './view-cache'

/** The parts of a session object's storage an open session reads and writes through. */
export interface SessionParts {
  log: SessionLog
  view: ViewCache
  steps: StepRecords
  indexes: LogIndexes
  row: SessionRowCache
  writer: SessionWriter
  answers: SessionAnswers
}

const EMPTY_VIEW = new PackedColumns().prefix()

/** The answer when the session a request began on ended while it ran (expired, or deleted). */
const sessionEnded = () =>
  new ServiceError('not_found', 'session not found: it expired or was deleted while this request ran; nothing more was written')

/**
 * A session as one request found it (`StoredSession.open`), for the compaction core's and the
 * chat turn's ports: found once, expiry checked once; each read then takes the session row as it
 * now is — the request's own writes included — as long as it is the same session. One that ended
 * while the request ran (expired, or deleted and perhaps created anew) is never written to again:
 * its writes are 404. A request that found no session creates it with its first write.
 */
export class OpenSession {
  /** Reads kept until the session's next write (the version they were read at). */
  private readonly memo = new Map<string, unknown>()
  private memoVersion = -1
  /** The session this request works on, by its creation time; null until there is one. */
  private incarnation: string | null

  /** `found`: the session as the request found it (null: it had none). */
  constructor(
    private readonly parts: SessionParts,
    private readonly address: SessionAddress,
    found: SessionRecord | null,
  ) {
    this.incarnation = found?.createdAt ?? null
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
    if (now === null || now.createdAt !== this.incarnation) throw sessionEnded()
    return now
  }

  /** The session a write goes to: the current one, unless it has expired meanwhile (null: none yet, the write creates it). */
  private writable(): SessionRecord | null {
    const record = this.current()
    if (record && hasExpired(record)) throw sessionEnded()
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

  // ── the compaction core's store ──────────────────────────────────────────────────────────

  async readView(): Promise<ViewSnapshot> {
    const record = this.current()
    return record ? { view: this.parts.view.snapshot(record), version: record.version } : { view: EMPTY_VIEW, version: 0 }
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
    if (!record) throw sessionNotFound()
    return this.parts.writer.commit(record, events, { expectedVersion })
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
      const latest = record.stats.latestSystem
      const system = latest ? this.parts.view.event(latest.seq) : null
      return {
        policy: record.policy,
        viewTokens: record.stats.viewTokens,
        calibration: record.calibration,
        latestSystem: latest && system ? { tokens: latest.tokens, content: system.message.content ?? '' } : null,
      }
    })
  }

  async stepLog(): Promise<StepRecords | null> {
    return this.current() ? this.parts.steps : null
  }

  async newestTurn(): Promise<readonly MessageEvent[]> {
    const record = this.current()
    if (!record) return []
    return this.memoized('newestTurn', record.version, () => [
      ...this.parts.view.eventsOf(newestTurnSeqs(this.parts.view.snapshot(record)), KEEP.prompt),
    ])
  }

  async recall(query: string, limit: number): Promise<RecallHit[]> {
    const record = this.current()
    return record ? this.parts.answers.recallHits(record, query, limit) : []
  }

  usedToolIds(ids: readonly string[]): Set<string> {
    return this.current() ? this.parts.indexes.toolIds.used(ids) : new Set()
  }

  async writeTurn(events: NewMessageEvent[], step: StepRecord & { calibration: Calibration }): Promise<SessionEvent[]> {
    const record = this.writable() ?? newRecord(this.address, {})
    const calibrated = { ...record, calibration: step.calibration, lastUsage: step.usage }
    return (await this.parts.writer.write(calibrated, events, { step: this.parts.steps.writeOf(step) })).events
  }

  async writeHistory(events: NewMessageEvent[]): Promise<SessionEvent[]> {
    return (await this.parts.writer.write(this.writable() ?? newRecord(this.address, {}), events)).events
  }
}
