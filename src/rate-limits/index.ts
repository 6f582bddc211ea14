/**
 * Per-user rate limits and quotas: requests a minute (counted in up to 16 `RequestShard` objects,
 * `request-limit`), turns a minute and tokens a day (in the user's index object, `user-limits`),
 * turns queued on one session (`turn-limiter`). The settings are `limits`; the Durable Objects
 * (`object/request-shard`, `object/user-index`) hold the tables, the HTTP middleware
 * (`http/rate-limit`) and the session object call in through `object/limits`.
 */
export {
  DAY_MS,
  type LimitScope,
  limitsOf,
  MAX_REQUEST_SHARDS,
  MINUTE_MS,
  type RateLimits,
  type Refusal,
  rateLimited,
  requestShares,
  type TurnLimits,
  windowOf,
} from './limits'
export { type RequestLimit, type RequestShardPort, requestLimit } from './request-limit'
export { RequestWindow } from './request-window'
export { admitted, type TurnLimiter } from './turn-limiter'
export { UserLimits } from './user-limits'
export { type UserCounterPort, type UserCounters, userTurnLimiter } from './user-turn-limiter'
