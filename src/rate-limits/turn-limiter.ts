import type { ServiceError } from '../contract/errors'
import type { Usage } from '../contract/turn-result'

/**
 * What a turn passes through on its way to the model: the user's limits. The session object
 * builds it over the user's index object; with no limits on there is none.
 */
export interface TurnLimiter {
  /** Counts a model turn (or throws the 429); answers how to take the count back. */
  admit(): Promise<{ refund(): Promise<void> }>
  /** Adds what a model call reported to the user's daily tokens (chat and summaries alike). */
  spend(usage: Usage | null): Promise<void>
  /** How many turns may wait on the session behind the running one (0: no limit). */
  maxQueued: number
  /** The 429 for one turn too many on the session (its request is taken back off the count first). */
  queueFull(): Promise<ServiceError>
}

/**
 * Runs a step admitted by the limiter: counted as a model turn, taken back if it fails before it
 * reaches the model (a 413, say), so only turns that reached the model count.
 *
 * @example
 * return admitted(deps.limiter, (reached) => stepBody(step, input, deps, reached))
 */
export async function admitted<T>(limiter: TurnLimiter | undefined, work: (reached: () => void) => Promise<T>): Promise<T> {
  const admission = await limiter?.admit()
  let reachedModel = false
  try {
    return await work(() => {
      reachedModel = true
    })
  } catch (error) {
    if (!reachedModel) await admission?.refund()
    throw error
  }
}
