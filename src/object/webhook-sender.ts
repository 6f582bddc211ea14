import type { Webhooks } from '../store/user-index/webhooks'
import { attemptDelivery, DEFAULT_TIMEOUT_MS } from '../webhooks'

/** Deliveries attempted together by one run of the alarm. */
const BATCH = 25

/**
 * Sends a user's due webhook deliveries, a batch at a time, each attempt recorded as it ends (see
 * `Webhooks.recordAttempt`). Answers when the next is due (null: none is pending).
 *
 * @example
 * const next = await sendDue(webhooks, env)
 * if (next !== null) await ctx.storage.setAlarm(next)
 */
export async function sendDue(webhooks: Webhooks, env: Env): Promise<number | null> {
  const timeoutMs = Number(env.WEBHOOK_TIMEOUT_MS) > 0 ? Number(env.WEBHOOK_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS
  const due = webhooks.due(Date.now(), BATCH)
  await Promise.all(
    due.map(async (delivery) => {
      const result = await attemptDelivery({
        url: delivery.url,
        secret: delivery.secret,
        id: delivery.id,
        body: delivery.body,
        timeoutMs,
      })
      webhooks.recordAttempt(delivery, result, Date.now())
    }),
  )
  webhooks.prune(Date.now())
  return webhooks.nextDue()
}
