import { rateLimited, type TurnLimits } from '../../limits'
import type { TurnGate } from '../../turns'
import { userIndexStub } from '../address'

/** How long a turn refused by a full session queue is told to wait. */
const QUEUE_RETRY_MS = 1000

/**
 * The gate a user's turns pass through (see `TurnGate`), over their index object: a model turn
 * costs one RPC to it when a turn or token limit is on, each model call one more when the token
 * quota is on; nothing when every limit is off.
 *
 * @example
 * const gate = userGate(env, address.userId, limits)
 * turns.stream(session, input, gate)
 */
export function userGate(env: Env, userId: string, limits: TurnLimits): TurnGate | undefined {
  const { turnsPerMinute, tokensPerDay, maxQueuedTurns } = limits
  if (turnsPerMinute === 0 && tokensPerDay === 0 && maxQueuedTurns === 0) return undefined
  const index = () => userIndexStub(env, userId)
  return {
    async admit() {
      if (turnsPerMinute === 0 && tokensPerDay === 0) return { refund: async () => undefined }
      const refusal = await index().admitTurn({ turnsPerMinute, tokensPerDay })
      if (refusal) throw rateLimited(refusal, Date.now())
      return { refund: async () => (turnsPerMinute > 0 ? index().refundTurn() : undefined) }
    },
    async spend(usage) {
      if (tokensPerDay > 0 && usage && usage.totalTokens > 0) await index().spend(usage.totalTokens)
    },
    maxQueued: maxQueuedTurns,
    async queueFull() {
      await index().refundRequest()
      const now = Date.now()
      return rateLimited({ scope: 'session', limit: maxQueuedTurns, resetAt: now + QUEUE_RETRY_MS }, now)
    },
  }
}
