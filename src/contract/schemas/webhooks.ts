import { z } from '@hono/zod-openapi'
import { Timestamp } from './common'

/** The event types a webhook may subscribe to (`webhook.test` is sent only when asked for). */
export const WEBHOOK_EVENT_TYPES = [
  'turn.completed',
  'turn.requires_action',
  'turn.failed',
  'session.compacted',
  'compaction.failed',
  'session.rewound',
  'session.forked',
  'session.deleted',
  'session.expired',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

/** https anywhere, or http to this machine (a receiver under development). */
const isWebhookUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    if (url.username || url.password) return false
    if (url.protocol === 'https:') return true
    return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)
  } catch {
    return false
  }
}

const WebhookUrl = z
  .string()
  .max(2048)
  .refine(isWebhookUrl, 'must be an https URL (or http to localhost / 127.0.0.1), without credentials')
  .openapi({ example: 'https://example.com/hooks/sessions' })

const EventTypes = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, '*']))
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .openapi({ description: 'The event types sent, or `["*"]` for all.', example: ['turn.completed', 'session.compacted'] })

const Description = z.string().max(500)

export const WebhookCreateSchema = z
  .object({ url: WebhookUrl, events: EventTypes, description: Description.optional() })
  .strict()
  .openapi('WebhookCreate')

export const WebhookPatchSchema = z
  .object({
    events: EventTypes.optional(),
    description: Description.nullable().optional(),
    disabled: z.literal(false).optional().openapi({ description: '`false` enables a disabled endpoint again.' }),
  })
  .strict()
  .openapi('WebhookPatch')

export const WebhookSchema = z
  .object({
    id: z.string().openapi({ example: 'wh_0f1e2d3c4b5a69788796a5b4c3d2e1f0' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: Timestamp,
    disabled: z.boolean().openapi({ description: 'A receiver answered 410 Gone: nothing is sent until it is enabled again.' }),
  })
  .openapi('Webhook')

export const WebhookCreatedSchema = WebhookSchema.extend({
  secret: z.string().openapi({
    description: 'The signing secret (Standard Webhooks): shown only here.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  }),
}).openapi('WebhookCreated')

export const WebhookListSchema = z.object({ webhooks: z.array(WebhookSchema) }).openapi('WebhookList')

export const WebhookParamsSchema = z.object({
  id: z
    .string()
    .regex(/^wh_[0-9a-f]{32}$/, 'not a webhook id')
    .openapi({ param: { name: 'id', in: 'path' } }),
})

/** Where a delivery stands. */
export const DeliveryStatusSchema = z.enum(['pending', 'delivered', 'failed'])

export const DeliveriesQuerySchema = z.object({
  status: DeliveryStatusSchema.optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'At most this many, newest first (default 100).' }),
})

export const DeliveriesSchema = z
  .object({
    deliveries: z.array(
      z.object({
        id: z.string().openapi({ description: 'The `webhook-id` every attempt carries.' }),
        type: z.string(),
        status: DeliveryStatusSchema,
        attempts: z.int(),
        lastStatus: z.int().nullable(),
        lastError: z.string().nullable(),
        createdAt: Timestamp,
      }),
    ),
  })
  .openapi('WebhookDeliveries')

export const WebhookTestSchema = z.object({ id: z.string() }).openapi('WebhookTest')

export type WebhookJson = z.output<typeof WebhookSchema>
export type DeliveryJson = z.output<typeof DeliveriesSchema>['deliveries'][number]
export type DeliveryStatus = z.output<typeof DeliveryStatusSchema>
