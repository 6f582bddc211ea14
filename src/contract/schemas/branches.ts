import { z } from '@hono/zod-openapi'
import { SIZE_LIMITS } from '../limits'
import { BeforeSeq, Limit, MetadataSchema, SessionId } from './common'
import { EventSchema } from './events'
import { TtlSeconds } from './sessions'

const PositionSchema = z
  .enum(['at', 'before'])
  .openapi({ description: 'The view as of the event (`at`, the default) or as of the one before it (`before`).' })

export const RewindPointSchema = z
  .strictObject({
    to: z.string().min(1).nullable().openapi({ description: 'A message of the log (not a summary event); null: the empty log.' }),
    position: PositionSchema.optional(),
  })
  .openapi('RewindPoint')

export const RewindRequestSchema = z
  .strictObject({
    to: z.string().min(1).nullable().openapi({
      description:
        'A message of the log (not a summary event), on the lineage or abandoned (that brings a branch back); null: the empty log.',
    }),
    position: PositionSchema.optional(),
    expectedVersion: z
      .int()
      .min(0)
      .optional()
      .openapi({ description: 'Checked only when something is written: stale → 409 `version_conflict`.' }),
  })
  .openapi('RewindRequest')

export type RewindInput = z.output<typeof RewindRequestSchema>

export const RewindResponseSchema = z
  .object({
    rewind: EventSchema.nullable().openapi({
      description: 'The REWIND written; null when the view would not change (nothing written).',
    }),
    abandoned: z.int().openapi({ description: 'Message events of the lineage the rewind took off it.' }),
    version: z.int(),
  })
  .openapi('RewindResponse')

export type RewindJson = z.output<typeof RewindResponseSchema>

export const BranchesQuerySchema = z.strictObject({
  limit: Limit(SIZE_LIMITS.compactionsPage),
  before: BeforeSeq('branches abandoned by rewinds'),
})

export const BranchesPageSchema = z
  .object({
    branches: z.array(
      z.object({
        rewindEventId: z.string().openapi({ description: 'The REWIND that abandoned the run.' }),
        at: z.object({ to: z.string().nullable(), position: PositionSchema }),
        parentEventId: z.string().nullable().openapi({
          description: 'The message it went on from (null: the start of the log): the branches at one point share it.',
        }),
        firstEventId: z.string(),
        tipEventId: z.string().openapi({ description: 'Its last message: `rewind { to: tipEventId }` brings it back.' }),
        events: z.int().openapi({ description: 'Its message events.' }),
        headline: z.string().openapi({
          description: 'Its first text, at most 200 characters (a summary or a system prompt only when the run holds no other).',
        }),
        abandonedAt: z.string().openapi({ description: 'When the REWIND was written.' }),
        onLineage: z.boolean().openapi({ description: 'Its first message is on the lineage now: it was brought back.' }),
        parentOnLineage: z.boolean().openapi({
          description: 'Its parent is on the lineage now: it is one of the conversation’s alternatives at that point.',
        }),
      }),
    ),
    nextBefore: z.int().nullable(),
  })
  .openapi('BranchesPage')

export type BranchesPageJson = z.output<typeof BranchesPageSchema>

export const ForkRequestSchema = z
  .strictObject({
    id: SessionId.optional().openapi({ description: 'The new session’s id (default: a new one).' }),
    at: z.string().min(1).optional().openapi({
      description:
        'A message of the source (not a summary event): the fork’s view is the source’s as of it. Default: the source’s view now.',
    }),
    position: PositionSchema.optional(),
    metadata: MetadataSchema.optional().openapi({ description: 'Default: the source’s.' }),
    ttlSeconds: TtlSeconds.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.position !== undefined && input.at === undefined)
      ctx.addIssue({ code: 'custom', path: ['position'], message: 'goes only with at' })
  })
  .openapi('ForkRequest')

export type ForkInput = z.output<typeof ForkRequestSchema>
