/** Delays after each failed attempt, in order; the last repeats until the delivery is a day old. */
const DELAYS_S = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 21_600, 28_800]

/** How long deliveries are retried for, from their first attempt's creation. */
export const RETRY_FOR_MS = 24 * 60 * 60 * 1000

/** The longest `Retry-After` a receiver may ask for in place of the schedule. */
export const MAX_RETRY_AFTER_S = 60

/**
 * When to try a failed delivery again, or null to give up: after `attempts` failed attempts,
 * the schedule's delay — or the receiver's `Retry-After` when it asks for at most a minute —
 * until the delivery, created at `createdAt`, is a day old.
 *
 * @example
 * nextAttemptAt({ attempts: 1, createdAt: 0, now: 1000 }) // 6000: the first retry 5 s later
 */
export function nextAttemptAt(attempt: {
  attempts: number
  createdAt: number
  now: number
  retryAfterS?: number | null
}): number | null {
  const { attempts, createdAt, now, retryAfterS } = attempt
  if (now - createdAt >= RETRY_FOR_MS) return null
  const scheduled = DELAYS_S[Math.min(attempts, DELAYS_S.length) - 1] ?? DELAYS_S[0]!
  // At least a second: a receiver asking for 0 is not hammered.
  const asked = retryAfterS != null && retryAfterS <= MAX_RETRY_AFTER_S ? Math.max(1, retryAfterS) : null
  return now + (asked ?? scheduled) * 1000
}

/** A `Retry-After` header in seconds (a number, or an HTTP date from `now`); null when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null
  const text = header.trim()
  if (/^\d+$/.test(text)) return Number(text)
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000))
}
