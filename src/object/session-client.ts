import type { DurableObject } from 'cloudflare:workers'
import { sessionStub } from './address'
import type { SessionObject } from './session-object'

/** The session object's RPC methods: every public method but the platform's (fetch, alarm, the WebSocket handlers). */
type Methods = Exclude<keyof SessionObject, keyof DurableObject<Env> | 'fetch' | 'alarm' | 'webSocketClose'>

/**
 * The session object's RPC methods with their declared types. Workers RPC stubs type results
 * that hold `unknown` (event and session metadata) as `unknown`; the values are what the object's
 * methods return, so the types are restored here, in one place.
 *
 * @example
 * const view = await sessionClient(env, userId, 'chat-1').readView()
 */
export function sessionClient(env: Env, userId: string, sessionId: string): Pick<SessionObject, Methods> {
  return sessionStub(env, userId, sessionId) as unknown as Pick<SessionObject, Methods>
}
