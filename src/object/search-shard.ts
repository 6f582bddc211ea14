import { DurableObject } from 'cloudflare:workers'
import { Sql } from '../sql'
import { ShardIndex } from '../store/user-search/shard-index'
import { shardRanking } from '../store/user-search/shard-ranking'
import type { ShardBatch, ShardPart, ShardQuery } from '../store/user-search/shard-types'

/**
 * One of a user's search shards (`SEARCH_SHARD_COUNT` of them, 4 by default): the words of the
 * sessions that hash to it, handed over by each session's alarm after its writes (see
 * `store/search/search-feed.ts`), searched by `GET /v1/search` and recall across sessions with
 * every other shard of the user at once. A session gone is hidden at once and purged by this
 * object's alarm, a step at a time. No text is kept: a hit's text comes from its session.
 */
export class SearchShard extends DurableObject<Env> {
  private readonly index: ShardIndex
  private readonly sql: Sql

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sql = new Sql(ctx.storage.sql)
    this.index = new ShardIndex(this.sql, (work) => ctx.storage.transactionSync(work))
  }

  /** Indexes a session's events (each once); answers how many were new. */
  add(batch: ShardBatch): number {
    return this.index.add(batch)
  }

  /** This shard's best candidates for a search, with its counts. */
  search(query: ShardQuery): ShardPart {
    return shardRanking(this.sql, this.index, query)
  }

  /** Hides a session's incarnation (deleted, expired, erased, or found gone by a search); its events are purged later. */
  async forget(sessionId: string, createdAt: string): Promise<void> {
    if (this.index.forget(sessionId, createdAt)) await this.ctx.storage.setAlarm(Date.now())
  }

  /** Hides every session created before `before` (the user erased everything). */
  async eraseBefore(before: string): Promise<void> {
    if (this.index.eraseBefore(before)) await this.ctx.storage.setAlarm(Date.now())
  }

  /** A purge step; the alarm set again at once while gone sessions' events are left. */
  override async alarm(): Promise<void> {
    if (this.index.purge()) await this.ctx.storage.setAlarm(Date.now())
  }
}
