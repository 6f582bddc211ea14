import { log } from '../log'
import { type Refusal, rateLimited, type TurnLimits } from './limits'
import type { RequestLimit } from './request-limit'
import type { TurnLimiter } from './turn-limiter'

/** The user's index object, as their turn limiter calls it (see `UserLimits`). */
export interface UserCounterPort {
  admitTurn(limits: Pick<TurnLimits, 'turnsPerMinute' | 'tokensPerDay'>): Promise<Refusal | null>
  refundTurn(): Promise<void>
  spend(tokens: number): Promise<void>
}

/** Where one user's counts are kept: their index object, and their request limit when one is on (null: none). */
export interface UserCounters {
  index(): UserCounterPort
  requests(): RequestLimit | null
}

/** How long a turn refused by a full session queue is told to wait. */
const QUEUE_RETRY_MS = 1000

/**
 * The limiter a user's turns pass through (see `TurnLimiter`), over their index object: a model
 * turn costs one RPC to it when a turn or token limit is on, each model call one more when the
 * token quota is on; none at all when every limit is off.
 *
 * @example
 * const limiter = userTurnLimiter(limits, counters)
 */
export function userTurnLimiter(limits: TurnLimits, counters: UserCounters): TurnLimiter | undefined {
  const { turnsPerMinute, tokensPerDay, maxQueuedTurns } = limits
  if (turnsPerMinute === 0 && tokensPerDay === 0 && maxQueuedTurns === 0) return undefined
  const index = () => counters.index()
  // A request a later limit refused counts toward none: taken back from the request shards. A take-back
  // that fails costs the user one request of their minute, never the refusal's own 429.
  const refundRequest = async () => {
    await counters
      .requests()
      ?.refund()
      .catch((error: unknown) => log.warn('a refused request could not be taken back', { error: String(error) }))
  }
  return {
    async admit() {
      if (turnsPerMinute === 0 && tokensPerDay === 0) return { refund: async () => undefined }
      const refusal = await index().admitTurn({ turnsPerMinute, tokensPerDay })
      if (refusal) {
        await refundRequest()
        throw rateLimited(refusal, Date.now())
      }
      return { refund: async () => (turnsPerMinute > 0 ? index().refundTurn() : undefined) }
    },
    async spend(usage) {
      if (tokensPerDay > 0 && usage && usage.totalTokens > 0) await index().spend(usage.totalTokens)
    },
    maxQueued: maxQueuedTurns,
    async queueFull() {
      await refundRequest()
      const now = Date.now()
      return rateLimited({ scope: 'session', limit: maxQueuedTurns, resetAt: now + QUEUE_RETRY_MS }, now)
    },
  }
}
