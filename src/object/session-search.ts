import { type AcrossSessions, acrossSessions } from '../contract/search-settings'
import type { SessionAddress } from '../contract/session-address'
import type { MessageEvent, RecallHit } from '../core'
import type { SessionReads } from '../reads/session-reads'
import type { SearchPort } from '../store/search/search-feed'
import type { SessionStorage } from '../store/session-storage'
import type { ShardBatch } from '../store/user-search/shard-types'
import { type HitsOf, type SessionHits, searchAcross, sessionHitsOf } from './across-sessions'
import { searchShardStub, shardOf } from './address'

/**
 * A session object's part in the search across sessions: the deployment's setting, where its
 * events go (its shard), its hits as it answers them, and `recall_history` over all of the
 * user's sessions.
 *
 * @example
 * const search = new SessionSearchPart(env, () => storage, () => reads, (work) => ctx.waitUntil(work))
 */
export class SessionSearchPart {
  constructor(
    private readonly env: Env,
    private readonly storage: () => SessionStorage,
    private readonly reads: () => SessionReads,
    private readonly background: (work: Promise<unknown>) => void,
    /** The deployment's setting (a subclass may say otherwise: the benchmark compares on and off). */
    private readonly setting: (env: Env) => AcrossSessions = acrossSessions,
  ) {}

  /** The setting as it is now; null when the search across sessions is off (or set wrong: the search route says which). */
  settings(): AcrossSessions | null {
    try {
      const settings = this.setting(this.env)
      return settings.on ? settings : null
    } catch {
      return null
    }
  }

  /** Where the session's storage hands its events (see `SearchFeed`). */
  port(): SearchPort {
    return {
      settings: () => this.settings(),
      send: (userId: string, shards: number, batch: ShardBatch) =>
        searchShardStub(this.env, userId, shards, shardOf(batch.sessionId, shards)).add(batch),
    }
  }

  /** This incarnation's hits of a search across sessions, in the order of `seqs` (null: it is not the one searched). */
  async hitsOf(createdAt: string, q: string, seqs: number[], withText: boolean): Promise<SessionHits | null> {
    const record = await this.storage().find()
    if (!record || record.createdAt !== createdAt) return null
    return { title: record.title, hits: this.reads().hitsOf(record, q, seqs, withText) }
  }

  /**
   * `recall_history` with `scope: "all_sessions"`: all of the user's sessions searched (see
   * `searchAcross`), this one's view left out (the model sees it); each hit names its session.
   * With the search across sessions off, this session's covered events alone.
   */
  async recall(address: SessionAddress, query: string, limit: number): Promise<RecallHit[]> {
    if (this.settings() === null) {
      const record = await this.storage().find()
      return record ? this.storage().lineage.recallHits(record, query, limit) : []
    }
    const others = sessionHitsOf(this.env, address.userId)
    // This session answers for itself (its own object is not called from within): its covered events alone.
    const hitsOf: HitsOf = async (sessionId, createdAt, q, seqs, withText) => {
      if (sessionId !== address.sessionId) return others(sessionId, createdAt, q, seqs, withText)
      const own = await this.hitsOf(createdAt, q, seqs, withText)
      return own && { ...own, hits: own.hits.filter((hit) => hit.covered) }
    }
    const query_ = { q: query, mode: 'auto' as const, limit, offset: 0 }
    const { hits } = await searchAcross(this.env, address.userId, query_, { withText: true, hitsOf, background: this.background })
    return hits.map((hit) => {
      const event = JSON.parse(hit.event) as MessageEvent
      return {
        id: event.id,
        seq: hit.seq,
        role: event.message.role,
        text: hit.text ?? '',
        sessionId: hit.sessionId,
        sessionTitle: hit.sessionTitle,
      }
    })
  }
}
