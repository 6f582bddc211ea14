import type { MiddlewareHandler } from 'hono'
import { userIndexStub } from '../../object/address'
import { limitsOf, rateLimited } from '../../rate-limits'
import type { AppEnv } from '../env'

/**
 * The per-user request limit (`RATE_LIMIT_REQUESTS` a minute): each request, after auth, is
 * counted in the user's index object, or refused with a 429 before it does anything. Costs one
 * RPC to that object per request (none when the limit is off), which reads and writes one row.
 *
 * @example
 * app.use('/v1/*', requestLimit())
 */
export function requestLimit(): MiddlewareHandler<AppEnv> {
  return async function requestLimiter(c, next) {
    const { requestsPerMinute } = limitsOf(c.env)
    if (requestsPerMinute > 0) {
      const refusal = await userIndexStub(c.env, c.get('userId')).admitRequest(requestsPerMinute)
      if (refusal) throw rateLimited(refusal, Date.now())
    }
    await next()
  }
}
