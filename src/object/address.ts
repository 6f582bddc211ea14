import { acrossSessions } from '../contract/search-settings'
import { log } from '../log'
import type { SessionDirectory } from '../store/log/lifecycle'

/**
 * A session object's name, encoded so that no two different pairs share one: the user id is
 * length-prefixed, so `a:b` + `c` and `a` + `b:c` stay apart.
 *
 * @example
 * sessionObjectName('alice', 'chat-1') // '5:alice/chat-1'
 */
const sessionObjectName = (userId: string, sessionId: string): string => `${userId.length}:${userId}/${sessionId}`

/** The session object of a user's session. */
export const sessionStub = (env: Env, userId: string, sessionId: string) =>
  env.SESSIONS.getByName(sessionObjectName(userId, sessionId))

/** A user's index object: their sessions, their turn and token counters, their webhooks. */
export const userIndexStub = (env: Env, userId: string) => env.USERS.getByName(`user:${userId}`)

/** A user's memory store: their files under `/memories` (see `./memory-store`). */
export const memoryStub = (env: Env, userId: string) => env.MEMORIES.getByName(`memory:${userId}`)

/** One of a user's request shards (see `./request-limit`): its number before the user id, so no two pairs share a name. */
export const requestShardStub = (env: Env, userId: string, shard: number) =>
  env.REQUEST_SHARDS.getByName(`requests:${shard}/${userId}`)

/**
 * Which of a user's `shards` search shards holds a session: a hash of its id (FNV-1a), so every
 * incarnation of it goes to the same one and no lookup is needed.
 *
 * @example
 * shardOf('chat-1', 4) // 0 to 3
 */
export function shardOf(sessionId: string, shards: number): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < sessionId.length; i++) hash = Math.imul(hash ^ sessionId.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % shards
}

/** One of a user's search shards (its number among `shards`: another count is another set of objects). */
export const searchShardStub = (env: Env, userId: string, shards: number, shard: number) =>
  env.SEARCH_SHARDS.getByName(`search:${shards}:${shard}/${userId}`)

/**
 * The user's index as a session's directory: where its storage lists and unlists it.
 *
 * @example
 * new SessionStorage(ctx.storage, sessionDirectory(env), estimator)
 */
export const sessionDirectory = (env: Env): SessionDirectory => ({
  list: (session) =>
    userIndexStub(env, session.userId).add({
      id: session.id,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      updatedAt: session.lastAppendAt,
      title: session.title,
      firstMessage: session.firstMessage,
      metadata: JSON.stringify(session.metadata),
      forkedFrom: session.forkedFrom?.sessionId ?? null,
    }),
  unlist: async (session, notices) => {
    await userIndexStub(env, session.userId).remove(session.id, session.createdAt, notices)
    await forgetSearched(env, session.userId, session.id, session.createdAt)
  },
  tell: (userId, notices) => userIndexStub(env, userId).receive(notices),
})

/**
 * Tells the session's search shard that this incarnation is gone, so its events are purged there.
 * A failure is logged, not thrown: a search never returns a gone session's events whatever its
 * shard holds (each hit is asked of its session), and tells the shard again when it finds one.
 */
export async function forgetSearched(env: Env, userId: string, sessionId: string, createdAt: string): Promise<void> {
  try {
    const { on, shards } = acrossSessions(env)
    if (on) await searchShardStub(env, userId, shards, shardOf(sessionId, shards)).forget(sessionId, createdAt)
  } catch (error) {
    log.warn('telling the search shard of a gone session failed', { session: sessionId, error: String(error) })
  }
}
