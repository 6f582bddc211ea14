import { limitsOf, type RequestLimit, requestLimit, type TurnLimiter, type TurnLimits, userTurnLimiter } from '../rate-limits'
import { requestShardStub, userIndexStub } from './address'

/**
 * A user's request limit (`RATE_LIMIT_REQUESTS` a minute) over their request shards.
 *
 * @example
 * const refusal = await requestLimitOf(env, userId, 600).admit()
 */
export const requestLimitOf = (env: Env, userId: string, limit: number): RequestLimit =>
  requestLimit(userId, limit, (shard) => requestShardStub(env, userId, shard))

/**
 * The limiter a user's turns pass through, over their index object and request shards (none when
 * every limit is off).
 *
 * @example
 * const limiter = turnLimiterOf(env, address.userId, limitsOf(env))
 */
export function turnLimiterOf(env: Env, userId: string, limits: TurnLimits): TurnLimiter | undefined {
  return userTurnLimiter(limits, {
    index: () => userIndexStub(env, userId),
    requests: () => {
      const { requestsPerMinute } = limitsOf(env)
      return requestsPerMinute === 0 ? null : requestLimitOf(env, userId, requestsPerMinute)
    },
  })
}
