import { ServiceError } from '../contract/errors'

/**
 * Rate limits and quotas per user, across their sessions (HTTP contract, "Rate limits"): what a
 * deployment allows, the fixed windows they are counted in, and the 429 a refusal answers.
 */

/** What a limit counts: requests, model turns, provider-reported tokens, or turns queued on one session. */
export type LimitScope = 'requests' | 'turns' | 'tokens' | 'session'

/** A deployment's limits; 0 turns a limit off. */
export interface RateLimits {
  requestsPerMinute: number
  turnsPerMinute: number
  tokensPerDay: number
  maxQueuedTurns: number
}

/** The limits a turn is admitted under (the session object reads them from its variables). */
export type TurnLimits = Pick<RateLimits, 'turnsPerMinute' | 'tokensPerDay' | 'maxQueuedTurns'>

const DEFAULTS = {
  RATE_LIMIT_REQUESTS: 600,
  RATE_LIMIT_TURNS: 60,
  TOKEN_QUOTA_DAILY: 0,
  MAX_QUEUED_TURNS: 8,
}

function setting(env: Partial<Env>, name: keyof typeof DEFAULTS): number {
  const text = env[name]?.trim()
  if (text === undefined || text === '') return DEFAULTS[name]
  if (!/^\d{1,15}$/.test(text))
    throw new ServiceError('not_configured', `${name} must be a whole number ≥ 0 (0 turns the limit off), not "${text}"`)
  return Number(text)
}

/** Limits by the variables they were read from: read once per isolate (the Worker's and each object's). */
const parsed = new WeakMap<Env, RateLimits>()

/**
 * The deployment's limits: `RATE_LIMIT_REQUESTS` (per minute, default 600), `RATE_LIMIT_TURNS`
 * (per minute, default 60), `TOKEN_QUOTA_DAILY` (per UTC day, default off), `MAX_QUEUED_TURNS`
 * (per session, default 8). Each is checked whoever reads them, so one that is not valid refuses
 * every request.
 *
 * @throws {ServiceError} 503 `not_configured` naming a value that is not a whole number.
 * @example
 * limitsOf(env) // { requestsPerMinute: 600, turnsPerMinute: 60, tokensPerDay: 0, maxQueuedTurns: 8 }
 */
export function limitsOf(env: Partial<Env>): RateLimits {
  let limits = parsed.get(env as Env)
  if (!limits) {
    limits = {
      requestsPerMinute: setting(env, 'RATE_LIMIT_REQUESTS'),
      turnsPerMinute: setting(env, 'RATE_LIMIT_TURNS'),
      tokensPerDay: setting(env, 'TOKEN_QUOTA_DAILY'),
      maxQueuedTurns: setting(env, 'MAX_QUEUED_TURNS'),
    }
    parsed.set(env as Env, limits)
  }
  return limits
}

/** A request-limit shard counts at least this many requests a minute, so random spreading evens out. */
const MIN_SHARE = 100
/** At most this many objects count one user's requests: the ceiling of one user's request rate is theirs added up. */
export const MAX_REQUEST_SHARDS = 16

/**
 * How a request limit is split over the objects that count it: one share per shard, `limit / 100`
 * shards (1 to 16), the shares whole and adding up to the limit. A small limit stays on one object,
 * exact; a large one spreads a user's requests so that no single object bounds their rate.
 *
 * @example
 * requestShares(8) // [8]
 * requestShares(650) // [109, 109, 108, 108, 108, 108]
 */
export function requestShares(limit: number): number[] {
  const count = Math.min(MAX_REQUEST_SHARDS, Math.max(1, Math.floor(limit / MIN_SHARE)))
  const base = Math.floor(limit / count)
  return Array.from({ length: count }, (_, k) => base + (k < limit % count ? 1 : 0))
}

export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

/** The fixed window a moment falls in: minutes and UTC days, counted from the epoch. */
export const windowOf = (now: number, size: number) => now - (now % size)

/** A limit that refused: which, its value, and when its window resets (ms since the epoch). */
export interface Refusal {
  scope: LimitScope
  limit: number
  resetAt: number
}

/**
 * The 429 for a refusal, with `Retry-After` (seconds) and the `X-RateLimit-*` headers describing
 * the limit that refused.
 *
 * @example
 * throw rateLimited({ scope: 'turns', limit: 60, resetAt }, Date.now())
 */
export function rateLimited(refusal: Refusal, now: number): ServiceError {
  const retryAfter = Math.max(1, Math.ceil((refusal.resetAt - now) / 1000))
  const what = { requests: 'requests', turns: 'model turns', tokens: 'tokens today', session: 'turns queued on this session' }
  return new ServiceError('rate_limited', `over the limit of ${refusal.limit} ${what[refusal.scope]}; retry in ${retryAfter} s`, {
    'Retry-After': String(retryAfter),
    'X-RateLimit-Limit': String(refusal.limit),
    'X-RateLimit-Remaining': '0',
    'X-RateLimit-Reset': String(Math.ceil(refusal.resetAt / 1000)),
    'X-RateLimit-Scope': refusal.scope,
  })
}
