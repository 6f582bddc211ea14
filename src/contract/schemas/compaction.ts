import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { BeforeSeq, Id, Limit, SessionParamsSchema } from './common'
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
  limit: Limit(SIZE_LIMITS.compactionsPage),
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
        undone: z.boolean().openapi({ description: 'A pass an undo on the lineage took back.' }),
      }),
    ),
    nextBefore: z.int().nullable(),
  })
  .openapi('CompactionsPage')

export const UndoRequestSchema = z
  .strictObject({
    expectedVersion: z.int().min(0).optional().openapi({ description: 'Stale → 409 `version_conflict`.' }),
  })
  .openapi('UndoRequest')

export type UndoInput = z.output<typeof UndoRequestSchema>

export const UndoParamsSchema = SessionParamsSchema.extend({
  boundaryId: Id.openapi({ param: { name: 'boundaryId', in: 'path' }, description: 'The COMPACTION pass to undo.' }),
})

export const UndoResponseSchema = z
  .object({
    boundary: EventSchema.openapi({ description: 'The COMPACTION written, `boundary.undoes` naming the pass.' }),
    version: z.int(),
  })
  .openapi('UndoResponse')

export type UndoJson = z.output<typeof UndoResponseSchema>

/** A compaction pass's result, as the API writes it. */
export type CompactionResultJson = z.output<typeof CompactionResultSchema>
/** `GET /compactions`: a page of them. */
export type CompactionsPageJson = z.output<typeof CompactionsPageSchema>

export const PinsRequestSchema = z
  .strictObject({
    pin: z
      .array(Id)
      .max(SIZE_LIMITS.eventsPerAppend)
      .optional()
      .openapi({ description: 'Messages to pin: no pass covers them.' }),
    unpin: z.array(Id).max(SIZE_LIMITS.eventsPerAppend).optional().openapi({ description: 'Messages to unpin: ordinary again.' }),
    expectedVersion: z.int().min(0).optional().openapi({ description: 'Stale → 409 `version_conflict`.' }),
  })
  .superRefine((input, ctx) => {
    if ((input.pin?.length ?? 0) + (input.unpin?.length ?? 0) === 0)
      ctx.addIssue({ code: 'custom', path: ['pin'], message: 'pin or unpin must name at least one message' })
  })
  .openapi('PinsRequest')

export type PinsInput = z.output<typeof PinsRequestSchema>

export const PinsResponseSchema = z
  .object({
    pins: EventSchema.openapi({ description: 'The PINS event written.' }),
    pinned: z.array(z.string()).openapi({ description: 'Every message pinned on the lineage now, in log order.' }),
    version: z.int(),
  })
  .openapi('PinsResponse')

export type PinsJson = z.output<typeof PinsResponseSchema>
