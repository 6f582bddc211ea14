import { z } from '@hono/zod-openapi'
import { EventSchema } from './events'
import { StrategySchema, TriggerSchema } from './policy'

export const CompactRequestSchema = z
  .strictObject({ trigger: TriggerSchema.optional(), strategy: StrategySchema.optional() })
  .openapi('CompactRequest')

export type CompactInput = z.output<typeof CompactRequestSchema>

export const CompactionResultSchema = z
  .object({
    unchanged: z.boolean(),
    reason: z.enum(['trigger_not_fired', 'nothing_to_cover', 'summarizer_declined', 'summarizer_failed', 'conflict']).nullable(),
    covered: z.array(EventSchema),
    pinned: z.array(EventSchema),
    summary: z.array(EventSchema),
    preserved: z.array(EventSchema),
    tokensEstimatedSaved: z.int(),
    boundary: EventSchema.nullable(),
    version: z.int(),
  })
  .openapi('CompactionResult')
