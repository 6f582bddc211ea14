import { ServiceError } from '../contract/errors'
import { newDeliveryId, newWebhookId } from '../contract/ids'
import type { DeliveryStatus, WebhookJson } from '../contract/schemas/webhooks'
import type { Webhooks } from './deliveries'
import type { Notice } from './notices'
import { newWebhookSecret } from './sign'

/** Webhook endpoints one user may have. */
const MAX_WEBHOOKS = 20

const notFound = (id: string): never => {
  throw new ServiceError('not_found', `webhook "${id}" not found`)
}

/**
 * `/v1/webhooks`: a user's endpoints as the API manages them, over their index object's tables
 * (see {@link Webhooks}); `wake` sets the object's alarm to send what is due.
 *
 * @example
 * const endpoints = new WebhookEndpoints(hooks, (at) => wake(at))
 * const { secret } = endpoints.create({ url: 'https://example.com/hook', events: ['*'] })
 */
export class WebhookEndpoints {
  constructor(
    private readonly hooks: Webhooks,
    private readonly wake: (at: number) => Promise<void>,
  ) {}

  /** A new endpoint, with its secret (shown only now); at most {@link MAX_WEBHOOKS}. */
  create(input: { url: string; events: string[]; description?: string }): WebhookJson & { secret: string } {
    if (this.hooks.count() >= MAX_WEBHOOKS)
      throw new ServiceError('invalid_request', `a user may have at most ${MAX_WEBHOOKS} webhooks: delete one first`)
    const secret = newWebhookSecret()
    const created = this.hooks.create({
      ...input,
      description: input.description ?? null,
      id: newWebhookId(),
      secret,
      createdAt: new Date().toISOString(),
    })
    return { ...created, secret }
  }

  list(): WebhookJson[] {
    return this.hooks.list()
  }

  get(id: string): WebhookJson {
    return this.hooks.get(id) ?? notFound(id)
  }

  patch(id: string, change: { events?: string[]; description?: string | null; disabled?: boolean }): WebhookJson {
    return this.hooks.patch(id, change) ?? notFound(id)
  }

  delete(id: string): null {
    return this.hooks.delete(id) ? null : notFound(id)
  }

  /** Sends the endpoint a `webhook.test` event, whatever it subscribes to (a disabled one records it failed). */
  async test(id: string): Promise<{ id: string }> {
    this.get(id)
    const notice = {
      id: `test_${crypto.randomUUID()}`,
      type: 'webhook.test',
      timestamp: new Date().toISOString(),
      data: { webhookId: id },
    }
    let delivery = ''
    const pending = this.hooks.fanOut([notice as unknown as Notice], () => (delivery = newDeliveryId()), id)
    if (pending > 0) await this.wake(Date.now())
    return { id: delivery }
  }

  /** The endpoint's deliveries, newest first. */
  deliveries(id: string, status: DeliveryStatus | undefined, limit: number) {
    this.get(id)
    return this.hooks.deliveries(id, status, limit)
  }
}
