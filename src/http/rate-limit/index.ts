import type { MiddlewareHandler } from 'hono'
import { requestLimitOf } from '../../object/limits'
import { limitsOf, rateLimited } from '../../rate-limits'
import type { AppEnv } from '../env'

/**
 * The per-user request limit (`RATE_LIMIT_REQUESTS` a minute): each request, after auth, is
 * counted in one of the user's request shards, or refused with a 429 before it does anything.
 * Costs one RPC to a shard per request (none when the limit is off), which writes one row.
 *
 * @example
 * app.use('/v1/*', requestLimiter())
 */
export function requestLimiter(): MiddlewareHandler<AppEnv> {
  return async function limitRequests(c, next) {
    const { requestsPerMinute } = limitsOf(c.env)
    if (requestsPerMinute > 0) {
      const refusal = await requestLimitOf(c.env, c.get('userId'), requestsPerMinute).admit()
      if (refusal) throw rateLimited(refusal, Date.now())
    }
    await next()
  }
}
