import { type Outcome, ServiceError } from '../contract/errors'
import { acrossSessions } from '../contract/search-settings'
import { rankGathered } from '../core'
import { log } from '../log'
import type { SessionHit } from '../reads/session-reads'
import type { ShardQuery } from '../store/user-search/shard-types'
import { forgetSearched, searchShardStub, sessionStub, shardOf } from './address'

/** The most hits a search across sessions ranks: its cursor goes no further. */
export const MOST_ACROSS = 1000

/** Candidates asked of their sessions beyond what a page still needs: some may be gone or abandoned. */
const SLACK = 5

/** A search of all of a user's sessions (`GET /v1/search`): the query, its filters, where its page starts. */
export interface AcrossQuery {
  q: string
  mode: 'all' | 'any' | 'auto'
  sessions?: string[]
  role?: string
  since?: string
  until?: string
  limit: number
  offset: number
}

/** A session's hits of a search across sessions: its title, and the hits it found on its lineage. */
export interface SessionHits {
  title: string | null
  hits: SessionHit[]
}

/** A hit of a search across sessions: its session, and its event as that session answered it. */
export interface AcrossHit extends SessionHit {
  sessionId: string
  sessionTitle: string | null
  match: 'all' | 'any'
}

/**
 * How a session's hits are read: by its object, or (the session running a recall) by itself. Null:
 * the session is gone (or another incarnation); a throw: it could not answer now.
 */
export type HitsOf = (
  sessionId: string,
  createdAt: string,
  q: string,
  seqs: number[],
  withText: boolean,
) => Promise<SessionHits | null>

/** A session's hits as its object answers them (see `SessionObject.hitsOf`). */
export const sessionHitsOf =
  (env: Env, userId: string): HitsOf =>
  async (sessionId, createdAt, q, seqs, withText) => {
    // Typed here, not through the object's class: the object itself searches across sessions.
    const session = sessionStub(env, userId, sessionId) as unknown as {
      hitsOf(createdAt: string, q: string, seqs: number[], withText: boolean): Promise<Outcome<SessionHits | null>>
    }
    const answer = await session.hitsOf(createdAt, q, seqs, withText)
    // A session that failed to answer is no gone one: its hits are left out, its shard not told.
    if (!answer.ok) throw new Error(`session ${sessionId} did not answer: ${answer.error.code}`)
    return answer.value
  }

/**
 * A search of all of a user's sessions: each of the user's search shards (those holding the
 * sessions asked for) ranks its candidates, the Worker ranks them all as one (their counts summed:
 * see the core's `rankGathered`), and each hit is asked of its session — which answers none for a
 * session gone (deleted, expired, erased: its shard is then told again) or an abandoned event. So
 * another user's events are never searched (shards and sessions are the user's own) and a gone
 * session's are never returned, whatever a shard still holds. A page reads from at most `limit`
 * + a few sessions. Answers the hits and the offset of the page after (null: none).
 *
 * @example
 * const { hits, next } = await searchAcross(env, 'alice', { q: 'login bug', mode: 'auto', limit: 20, offset: 0 })
 */
export async function searchAcross(
  env: Env,
  userId: string,
  query: AcrossQuery,
  options: { withText?: boolean; hitsOf?: HitsOf; background?: (work: Promise<unknown>) => void } = {},
): Promise<{ hits: AcrossHit[]; next: number | null }> {
  const { on, shards } = acrossSessions(env)
  if (!on) throw new ServiceError('not_configured', 'search across sessions is off (SEARCH_ACROSS_SESSIONS=off)')
  if (query.offset >= MOST_ACROSS) return { hits: [], next: null }
  const targets = query.sessions
    ? [...new Set(query.sessions.map((id) => shardOf(id, shards)))]
    : Array.from({ length: shards }, (_, shard) => shard)
  const { limit, offset, ...filters } = query
  const shardQuery: ShardQuery = { ...filters, want: Math.min(MOST_ACROSS, offset + 2 * limit) }
  const parts = await Promise.all(targets.map((shard) => searchShardStub(env, userId, shards, shard).search(shardQuery)))
  const ranked = rankGathered(parts, query.mode === 'auto').slice(0, MOST_ACROSS)
  const hitsOf = options.hitsOf ?? sessionHitsOf(env, userId)
  const hits: AcrossHit[] = []
  let at = offset
  while (hits.length < limit && at < ranked.length) {
    const slice = ranked.slice(at, at + limit - hits.length + SLACK)
    const sessions = new Map<string, { sessionId: string; createdAt: string; seqs: number[] }>()
    for (const { candidate } of slice) {
      const session = sessions.get(candidate.group) ?? {
        sessionId: candidate.sessionId,
        createdAt: candidate.createdAt,
        seqs: [],
      }
      session.seqs.push(candidate.seq)
      sessions.set(candidate.group, session)
    }
    const answers = new Map<string, { title: string | null; hits: Map<number, SessionHit> }>()
    await Promise.all(
      [...sessions].map(async ([group, { sessionId, createdAt, seqs }]) => {
        let answer: SessionHits | null
        try {
          answer = await hitsOf(sessionId, createdAt, query.q, seqs, options.withText ?? false)
        } catch (error) {
          // Out of reach for now: this page goes without its hits; the session is not taken for gone.
          log.warn('a session did not answer a search across sessions', { session: sessionId, error: String(error) })
          return
        }
        if (answer === null) options.background?.(forgetSearched(env, userId, sessionId, createdAt))
        else answers.set(group, { title: answer.title, hits: new Map(answer.hits.map((hit) => [hit.seq, hit])) })
      }),
    )
    for (const { candidate } of slice) {
      at++
      const session = answers.get(candidate.group)
      const hit = session?.hits.get(candidate.seq)
      if (!session || !hit) continue
      hits.push({ ...hit, sessionId: candidate.sessionId, sessionTitle: session.title, match: candidate.all ? 'all' : 'any' })
      if (hits.length === limit) break
    }
  }
  const more = at < ranked.length || (parts.some((part) => part.more) && ranked.length < MOST_ACROSS)
  return { hits, next: more ? at : null }
}
