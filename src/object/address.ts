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
 * The user's index as a session's directory: where its storage lists and unlists it.
 *
 * @example
 * new SessionStorage(ctx.storage, sessionDirectory(env), estimator)
 */
export const sessionDirectory = (env: Env): SessionDirectory => ({
  list: (session) =>
    userIndexStub(env, session.userId).add({ id: session.id, createdAt: session.createdAt, expiresAt: session.expiresAt }),
  unlist: (session, notices) => userIndexStub(env, session.userId).remove(session.id, session.createdAt, notices),
  tell: (userId, notices) => userIndexStub(env, userId).receive(notices),
})
