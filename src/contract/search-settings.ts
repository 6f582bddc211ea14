import { ServiceError } from './errors'

/** How many search shards a user has when the deployment does not say, and the most it may say. */
export const DEFAULT_SEARCH_SHARDS = 4
export const MOST_SEARCH_SHARDS = 64

/** The deployment's search across sessions: whether sessions hand their events to it, over how many shards a user. */
export interface AcrossSessions {
  on: boolean
  shards: number
}

/**
 * `SEARCH_ACROSS_SESSIONS` (`on`, the default, or `off`) and `SEARCH_SHARD_COUNT` (1–64, default 4):
 * anything else is a 503 naming the variable (a deployment error, not the client's).
 *
 * @example
 * acrossSessions({}) // { on: true, shards: 4 }
 */
export function acrossSessions(env: { SEARCH_ACROSS_SESSIONS?: string; SEARCH_SHARD_COUNT?: string }): AcrossSessions {
  const on = (env.SEARCH_ACROSS_SESSIONS ?? '').trim().toLowerCase()
  if (!['', 'on', 'off'].includes(on)) {
    throw new ServiceError('not_configured', `SEARCH_ACROSS_SESSIONS: "${on}" is neither on nor off`)
  }
  const shards = (env.SEARCH_SHARD_COUNT ?? '').trim()
  const count = shards === '' ? DEFAULT_SEARCH_SHARDS : /^\d{1,2}$/.test(shards) ? Number(shards) : 0
  if (count < 1 || count > MOST_SEARCH_SHARDS) {
    throw new ServiceError(
      'not_configured',
      `SEARCH_SHARD_COUNT: "${shards}" is not a whole number from 1 to ${MOST_SEARCH_SHARDS}`,
    )
  }
  return { on: on !== 'off', shards: count }
}
