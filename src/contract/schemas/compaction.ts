import { z } from '@hono/zod-openapi'
import { LIMITS } from '../limits'
import { BeforeSeq, Limit } from './common'
import { EventSchema } from './events'
import { StrategySchema, TriggerSchema } from './policy'

export const CompactRequestSchema = z
  .strictObject({
    trigger: TriggerSchema.optional(),
    strategy: StrategySchema.optional(),
    dryRun: z
      .boolean()
      .optional()
      .openapi({ description: 'Answer what the pass would do: nothing written, no summarizer called (summary empty).' }),
    expectedVersion: z.int().min(0).optional().openapi({
      description:
        "The session version the caller saw (a dry run's `version`): at any other version → 409 `version_conflict`, nothing written. The pass then runs exactly as previewed.",
    }),
  })
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
    dryRun: z.literal(true).optional().openapi({ description: 'Present on a dry run: nothing was written (boundary null).' }),
  })
  .openapi('CompactionResult')

export const CompactionsQuerySchema = z.strictObject({
  limit: Limit(LIMITS.compactionsPage),
  before: BeforeSeq('boundaries'),
})

export const CompactionsPageSchema = z
  .object({
    compactions: z.array(
      z.object({
        boundary: EventSchema,
        summary: z.array(EventSchema),
        coveredEventCount: z.int(),
        tokensEstimatedSaved: z.int(),
        tokensBefore: z.int().nullable(),
        tokensAfter: z.int().nullable(),
      }),
    ),
    nextBefore: z.int().nullable(),
  })
  .openapi('CompactionsPage')

/** A compaction pass's result, as the API writes it. */
export type CompactionResultJson = z.output<typeof CompactionResultSchema>
/** `GET /compactions`: a page of them. */
export type CompactionsPageJson = z.output<typeof CompactionsPageSchema>
