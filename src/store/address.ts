/**
 * Durable Object names. A session's object is named by the pair (user, session id), encoded so
 * that no two different pairs share a name: the user id is length-prefixed, so `a:b` + `c` and
 * `a` + `b:c` stay apart.
 *
 * @example
 * sessionObjectName('alice', 'chat-1') // '5:alice/chat-1'
 */
export const sessionObjectName = (userId: string, sessionId: string): string => `${userId.length}:${userId}/${sessionId}`

/** The name of a user's session index object. */
export const userIndexName = (userId: string): string => `user:${userId}`

export const sessionStub = (env: Env, userId: string, sessionId: string) =>
  env.SESSIONS.get(env.SESSIONS.idFromName(sessionObjectName(userId, sessionId)))

export const userIndexStub = (env: Env, userId: string) => env.USERS.get(env.USERS.idFromName(userIndexName(userId)))
