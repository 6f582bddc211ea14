import { sessionStub } from './address'
import type { SessionObject } from './session-object'

type Methods =
  | 'create'
  | 'get'
  | 'patch'
  | 'destroy'
  | 'erase'
  | 'append'
  | 'readLog'
  | 'readView'
  | 'exportSession'
  | 'importSession'
  | 'messagesByIds'
  | 'storedAnswer'
  | 'readLineage'
  | 'appendHistory'
  | 'compact'
  | 'rewind'
  | 'undo'
  | 'pin'
  | 'fork'
  | 'createFork'
  | 'turn'
  | 'door'
  | 'doorCompaction'
  | 'countTokens'
  | 'context'
  | 'readCompactions'
  | 'readBranches'
  | 'search'
  | 'hitsOf'

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
