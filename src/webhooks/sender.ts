import { attemptDelivery, DEFAULT_TIMEOUT_MS } from './attempt'
import type { Webhooks } from './deliveries'

/** Deliveries started by one run of the alarm (the rest are due at once again). */
const BATCH = 25

/**
 * Starts the user's due webhook deliveries, a batch at a time, each leased for its attempt's
 * timeout and recorded as it ends (see `Webhooks.recordAttempt`), then `wake` is told when the
 * next is due: a slow receiver holds up no other's retry. Answers when the next is due now
 * (null: none is pending).
 *
 * @example
 * const next = sendDue(webhooks, env, (work) => ctx.waitUntil(work), (at) => wake(at))
 */
export function sendDue(
  webhooks: Webhooks,
  env: Env,
  background: (work: Promise<unknown>) => void,
  wake: (at: number) => Promise<void>,
): number | null {
  const timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS) > 0 ? Number(env.WEBHOOK_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS
  const now = Date.now()
  // The lease outlasts the attempt: a crash mid-attempt retries it once the lease ends.
  const due = webhooks.take(now, BATCH, now + timeoutMs + 5_000)
  for (const delivery of due)
    background(
      (async () => {
        const result = await attemptDelivery({
          url: delivery.url,
          secret: delivery.secret,
          id: delivery.id,
          body: delivery.body,
          timeoutMs,
        })
        webhooks.recordAttempt(delivery, result, Date.now())
        const next = webhooks.nextDue()
        if (next !== null) await wake(next)
      })(),
    )
  webhooks.prune(now)
  return webhooks.nextDue()
}
