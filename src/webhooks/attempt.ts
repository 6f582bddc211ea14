import { retryAfterSeconds } from './retry'
import { webhookSignature } from './sign'

/** How long a receiver has to answer one attempt (WEBHOOK_TIMEOUT_MS may shorten it for tests). */
export const DEFAULT_TIMEOUT_MS = 15_000

/** What one attempt to deliver came to. */
export interface AttemptResult {
  /** A 2xx. */
  ok: boolean
  /** The receiver's status (null: no answer — a timeout or a failed connection). */
  status: number | null
  /** Why it failed, in a few words (null when it did not). */
  error: string | null
  /** The receiver's `Retry-After`, in seconds, when it gave one. */
  retryAfterS: number | null
}

/** One signed delivery attempt. */
export interface Attempt {
  url: string
  secret: string
  /** The `webhook-id`: the same on every attempt of one delivery. */
  id: string
  body: string
  timeoutMs: number
}

/**
 * POSTs one Standard Webhooks delivery: `webhook-id`, `webhook-timestamp` (this attempt's time,
 * in seconds) and `webhook-signature`, the body as JSON. Never throws: every failure is an
 * {@link AttemptResult} the caller schedules a retry from.
 *
 * @example
 * const result = await attemptDelivery({ url, secret, id: 'msg_1', body, timeoutMs: 15_000 })
 */
export async function attemptDelivery(attempt: Attempt, now = Date.now()): Promise<AttemptResult> {
  const timestamp = Math.floor(now / 1000)
  try {
    const response = await fetch(attempt.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'durable-sessions-webhooks/1',
        'webhook-id': attempt.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await webhookSignature(attempt.secret, attempt.id, timestamp, attempt.body),
      },
      body: attempt.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(attempt.timeoutMs),
    })
    // The answer's body is not read: only its status counts.
    await response.body?.cancel()
    const ok = response.status >= 200 && response.status < 300
    return {
      ok,
      status: response.status,
      error: ok ? null : `the receiver answered ${response.status}`,
      retryAfterS: retryAfterSeconds(response.headers.get('Retry-After'), now),
    }
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    return {
      ok: false,
      status: null,
      error: timedOut ? `no answer in ${attempt.timeoutMs / 1000} s` : `the connection failed: ${String(error)}`.slice(0, 300),
      retryAfterS: null,
    }
  }
}
