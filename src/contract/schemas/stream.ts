import { z } from '@hono/zod-openapi'

export const StreamQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).optional().openapi({
    description: 'Send every stored event with a greater seq first (`Last-Event-ID` wins); without either, only what comes next.',
  }),
})

export const StreamHeadersSchema = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,15}$/, 'must be the seq of the last event received')
    .optional()
    .openapi({ description: 'The seq of the last event received (a reconnecting EventSource sends it).' }),
})
