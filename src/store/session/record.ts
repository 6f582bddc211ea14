import type { Metadata, ViewStats } from '../../core'
import type { Policy } from '../../policy'

/** The session row: owner, lifecycle, policy and the counters kept in step with every append. */
export interface SessionRecord {
  id: string
  userId: string
  createdAt: string
  expiresAt: string | null
  metadata: Metadata
  policy: Policy | null
  /** The seq of the last event (0 when empty), which is also the number of events. */
  version: number
  /** The seq of the newest COMPACTION event, 0 if none. */
  boundarySeq: number
  stats: ViewStats
  indexed: boolean
}

/** The contract's Session object. */
export interface SessionJson {
  id: string
  userId: string
  createdAt: string
  expiresAt: string | null
  metadata: Metadata
  version: number
  policy: Policy | null
  stats: { events: number; viewEvents: number; viewTokens: number; turns: number }
}

type Row = {
  id: string
  user_id: string
  created_at: string
  expires_at: string | null
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
}

export function readRecord(sql: SqlStorage): SessionRecord | null {
  const row = sql.exec<Row>('SELECT * FROM session').toArray()[0]
  if (!row) return null
  return {
    id: row.id,
    userId: row.user_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    metadata: JSON.parse(row.metadata) as Metadata,
    policy: row.policy === null ? null : (JSON.parse(row.policy) as Policy),
    version: row.version,
    boundarySeq: row.boundary_seq,
    stats: {
      events: row.view_events,
      tokens: row.view_tokens,
      turns: row.turns,
      latestSystem: row.latest_system_seq === null ? null : { seq: row.latest_system_seq, tokens: row.latest_system_tokens ?? 0 },
    },
    indexed: row.indexed === 1,
  }
}

/** Inserts or replaces the session row (one row, a handful of columns: cheap). */
export function writeRecord(sql: SqlStorage, r: SessionRecord): void {
  sql.exec(
    `INSERT OR REPLACE INTO session (singleton, id, user_id, created_at, expires_at, metadata, policy, version, boundary_seq,
       view_events, view_tokens, turns, latest_system_seq, latest_system_tokens, indexed)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    r.id,
    r.userId,
    r.createdAt,
    r.expiresAt,
    JSON.stringify(r.metadata),
    r.policy === null ? null : JSON.stringify(r.policy),
    r.version,
    r.boundarySeq,
    r.stats.events,
    r.stats.tokens,
    r.stats.turns,
    r.stats.latestSystem?.seq ?? null,
    r.stats.latestSystem?.tokens ?? null,
    r.indexed ? 1 : 0,
  )
}

export const sessionJson = (r: SessionRecord): SessionJson => ({
  id: r.id,
  userId: r.userId,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  metadata: r.metadata,
  version: r.version,
  policy: r.policy,
  stats: { events: r.version, viewEvents: r.stats.events, viewTokens: r.stats.tokens, turns: r.stats.turns },
})
