import type { CreateSessionInput, ForkedFrom, Policy, SessionJson, TitleSource } from '../../contract/schemas'
import type { SessionAddress } from '../../contract/session-address'
import type { Usage } from '../../contract/turn-result'
import {
  type Calibration,
  EMPTY_STATS,
  type Metadata,
  NO_USAGE,
  UNCALIBRATED,
  type UsageTotals,
  type ViewStats,
} from '../../core'
import type { Sql } from '../../sql'
import type { Notice } from '../../webhooks'
import { expiryFrom, expiryOf } from './expiry'
import { migrate } from './migrations'
import type { RecentUsage } from './recent-usage'

/** The session row: owner, lifecycle, policy and the counters kept in step with every append. */
export interface SessionRecord {
  id: string
  userId: string
  createdAt: string
  /** When it expires: the earlier of its fixed expiry and its idle one (see {@link expiryOf}). */
  expiresAt: string | null
  /** The expiry its `ttlSeconds` fixed; null: none. */
  fixedExpiresAt: string | null
  /** The session expires this long after its last append (its creation while it has none); null: no idle expiry. */
  idleTtlSeconds: number | null
  /** When the last append was written (not an imported event's own time); its creation while it has none. */
  lastAppendAt: string
  metadata: Metadata
  policy: Policy | null
  /** The seq of the last event (0 when empty), which is also the number of events. */
  version: number
  /** The seq of the newest COMPACTION event, 0 if none. */
  boundarySeq: number
  stats: ViewStats
  /** Whether the user's session index lists this session (its update is retried until it does). */
  indexed: boolean
  /** What the model counts ÷ what we estimate, learned from the chat calls' reports. */
  calibration: Calibration
  /** The usage the session's last chat call reported (null: it reported none, or there was none). */
  lastUsage: Usage | null
  /** The prompt and cached prompt tokens of its last chat calls that reported usage, oldest first (at most 20: see `./recent-usage`). */
  recentUsage: RecentUsage
  /** How many COMPACTION events the log holds. */
  compactions: number
  /** How many REWIND events the log holds. */
  rewinds: number
  /** How many PINS events the log holds. */
  pinEvents: number
  /** How many runs of messages rewinds abandoned. */
  branches: number
  /** Where a fork was forked from; null when the session is no fork. */
  forkedFrom: ForkedFrom | null
  /** How the last background pass failed, and when; null when it did not. */
  lastCompactionError: CompactionFailure | null
  /** The secret its compaction capsules are signed with; null until the first is made. */
  capsuleKey: string | null
  /** What its model calls spent, as the upstreams reported it (`/context`'s `usage`). */
  usage: UsageTotals
  /** Whether its user erased it (it ends as deleted, not expired). */
  erased: boolean
  /** Notices waiting in the row to be handed over (see `Outbox`). */
  notices: Notice[]
  /** Its title (see `./title`), and who gave it; null: none yet. */
  title: string | null
  titleSource: TitleSource | null
  /** The start of its first user message (null: none yet): what a listing's `q` looks in. */
  firstMessage: string | null
}

/** A background pass's failure as `/context` reports it. */
export interface CompactionFailure {
  error: { code: string; message: string }
  at: string
}

type Row = {
  id: string
  user_id: string
  created_at: string
  expires_at: string | null
  idle_ttl_seconds: number | null
  fixed_expires_at: string | null
  last_append_at: string | null
  metadata: string
  policy: string | null
  version: number
  boundary_seq: number
  view_events: number
  view_tokens: number
  turns: number
  latest_system_seq: number | null
  latest_system_tokens: number | null
  indexed: number
  ratio: number
  samples: number
  last_usage: string | null
  recent_usage: string | null
  compactions: number
  rewinds: number
  pin_events: number
  branches: number
  forked_from: string | null
  last_compaction_error: string | null
  capsule_key: string | null
  usage: string | null
  erased: number
  notices: string | null
  title: string | null
  title_source: string | null
  first_message: string | null
}

function readRecord(sql: Sql): SessionRecord | null {
  const row = sql.first<Row>`SELECT * FROM session`
  if (!row) return null
  return {
    id: row.id,
    userId: row.user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    idleTtlSeconds: row.idle_ttl_seconds,
    // Rows written before v11: an expiry was a fixed one, unless the session had an idle one.
    fixedExpiresAt: row.fixed_expires_at ?? (row.idle_ttl_seconds === null ? row.expires_at : null),
    lastAppendAt: row.last_append_at ?? row.created_at,
    metadata: JSON.parse(row.metadata) as Metadata,
    policy: row.policy === null ? null : (JSON.parse(row.policy) as Policy),
    version: row.version,
    boundarySeq: row.boundary_seq,
    stats: {
      viewEvents: row.view_events,
      viewTokens: row.view_tokens,
      turns: row.turns,
      latestSystem: row.latest_system_seq === null ? null : { seq: row.latest_system_seq, tokens: row.latest_system_tokens ?? 0 },
    },
    indexed: row.indexed === 1,
    calibration: { ratio: row.ratio, samples: row.samples },
    lastUsage: row.last_usage === null ? null : (JSON.parse(row.last_usage) as Usage | null),
    recentUsage: row.recent_usage ? (JSON.parse(row.recent_usage) as RecentUsage) : [],
    compactions: row.compactions,
    rewinds: row.rewinds,
    pinEvents: row.pin_events,
    branches: row.branches,
    forkedFrom: row.forked_from === null ? null : (JSON.parse(row.forked_from) as ForkedFrom),
    lastCompactionError: row.last_compaction_error === null ? null : (JSON.parse(row.last_compaction_error) as CompactionFailure),
    capsuleKey: row.capsule_key,
    usage: row.usage === null ? NO_USAGE : (JSON.parse(row.usage) as UsageTotals),
    erased: row.erased === 1,
    notices: row.notices === null ? [] : (JSON.parse(row.notices) as Notice[]),
    title: row.title ?? null,
    titleSource: (row.title_source ?? null) as TitleSource | null,
    firstMessage: row.first_message ?? null,
  }
}

/** Inserts or replaces the session row (one row, a handful of columns: cheap). */
export function writeRecord(sql: Sql, r: SessionRecord): void {
  const { stats } = r
  sql.run`INSERT OR REPLACE INTO session (singleton, id, user_id, created_at, expires_at, metadata, policy, version,
      boundary_seq, view_events, view_tokens, turns, latest_system_seq, latest_system_tokens, indexed, ratio, samples, last_usage, compactions,
      rewinds, pin_events, branches, forked_from, last_compaction_error, idle_ttl_seconds, capsule_key, fixed_expires_at, last_append_at,
      usage, erased, notices, title, title_source, first_message, recent_usage)
    VALUES (1, ${r.id}, ${r.userId}, ${r.createdAt}, ${r.expiresAt}, ${JSON.stringify(r.metadata)},
      ${r.policy === null ? null : JSON.stringify(r.policy)}, ${r.version}, ${r.boundarySeq}, ${stats.viewEvents},
      ${stats.viewTokens}, ${stats.turns}, ${stats.latestSystem?.seq ?? null}, ${stats.latestSystem?.tokens ?? null},
      ${r.indexed ? 1 : 0}, ${r.calibration.ratio}, ${r.calibration.samples},
      ${r.lastUsage === null ? null : JSON.stringify(r.lastUsage)}, ${r.compactions}, ${r.rewinds}, ${r.pinEvents}, ${r.branches},
      ${r.forkedFrom === null ? null : JSON.stringify(r.forkedFrom)},
      ${r.lastCompactionError === null ? null : JSON.stringify(r.lastCompactionError)}, ${r.idleTtlSeconds}, ${r.capsuleKey}, ${r.fixedExpiresAt}, ${r.lastAppendAt},
      ${r.usage.totalTokens === 0 && r.usage.turns === 0 ? null : JSON.stringify(r.usage)}, ${r.erased ? 1 : 0},
      ${r.notices.length === 0 ? null : JSON.stringify(r.notices)}, ${r.title}, ${r.titleSource}, ${r.firstMessage},
      ${r.recentUsage.length === 0 ? null : JSON.stringify(r.recentUsage)})`
}

/** The contract's Session object: `stats.events` counts every log event, which is the version. */
export const sessionJson = (r: SessionRecord): SessionJson => ({
  id: r.id,
  userId: r.userId,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  idleTtlSeconds: r.idleTtlSeconds,
  metadata: r.metadata,
  version: r.version,
  policy: r.policy,
  stats: { events: r.version, viewEvents: r.stats.viewEvents, viewTokens: r.stats.viewTokens, turns: r.stats.turns },
  forkedFrom: r.forkedFrom,
  title: r.title,
  titleSource: r.titleSource,
})

/** What a session is created with: the contract's fields (an idle ttl of 0 or null: none). */
export type NewSessionInput = CreateSessionInput

/** The row of a session about to be created. */
export function newRecord(address: SessionAddress, input: NewSessionInput): SessionRecord {
  const createdAt = new Date().toISOString()
  const times = {
    fixedExpiresAt: expiryFrom(input.ttlSeconds ?? null),
    idleTtlSeconds: input.idleTtlSeconds || null,
    lastAppendAt: createdAt,
  }
  return {
    id: address.sessionId,
    userId: address.userId,
    createdAt,
    expiresAt: expiryOf(times),
    ...times,
    metadata: input.metadata ?? {},
    policy: input.policy ?? null,
    version: 0,
    boundarySeq: 0,
    stats: EMPTY_STATS,
    indexed: false,
    calibration: UNCALIBRATED,
    lastUsage: null,
    recentUsage: [],
    compactions: 0,
    rewinds: 0,
    pinEvents: 0,
    branches: 0,
    forkedFrom: null,
    lastCompactionError: null,
    capsuleKey: null,
    usage: NO_USAGE,
    erased: false,
    notices: [],
    title: input.title ?? null,
    titleSource: input.title ? 'client' : null,
    firstMessage: null,
  }
}

/**
 * The session row, read once and then kept in step by every write. Reads never create tables:
 * probing an id that was never stored leaves no storage behind.
 */
export class SessionRowCache {
  /** null: this object holds no session; undefined: not read yet. */
  private record: SessionRecord | null | undefined
  private schemaReady = false

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly sql: Sql,
  ) {}

  /** The session row as stored, expired or not (null when there is none). */
  stored(): SessionRecord | null {
    if (this.record === undefined) this.record = this.openExisting() ? readRecord(this.sql) : null
    return this.record
  }

  /** The row as just written. */
  set(record: SessionRecord): void {
    this.record = record
  }

  /** Forgets the row and the schema: the object's storage was deleted. */
  forget(): void {
    this.record = undefined
    this.schemaReady = false
  }

  /** Creates or upgrades the schema; called before the first write. */
  ensureSchema(): void {
    if (this.schemaReady) return
    migrate(this.storage)
    this.schemaReady = true
  }

  /** Whether this object has ever stored a session; if so its schema is brought up to date. */
  private openExisting(): boolean {
    if (this.schemaReady) return true
    const found = this.sql.first`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'` !== null
    if (found) this.ensureSchema()
    return found
  }
}
