/** Which session a call is about: the session object is named by this pair. */
export interface SessionAddress {
  userId: string
  sessionId: string
}

/**
 * A session object's name, encoded so that no two different pairs share one: the user id is
 * length-prefixed, so `a:b` + `c` and `a` + `b:c` stay apart.
 *
 * @example
 * sessionObjectName('alice', 'chat-1') // '5:alice/chat-1'
 */
const sessionObjectName = (userId: string, sessionId: string): string => `${userId.length}:${userId}/${sessionId}`

export const sessionStub = (env: Env, userId: string, sessionId: string) =>
  env.SESSIONS.getByName(sessionObjectName(userId, sessionId))

/** A user's session index object. */
export const userIndexStub = (env: Env, userId: string) => env.USERS.getByName(`user:${userId}`)
