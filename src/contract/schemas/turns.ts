import { z } from '@hono/zod-openapi'
import type { Content, ToolResultInput } from '../../core'
import { SIZE_LIMITS } from '../limits'
import { RewindPointSchema } from './branches'
import { Id } from './common'
import { CompactionResultSchema } from './compaction'
import { EventSchema, ToolCallSchema } from './events'
import { PartsInputSchema } from './parts'
import { PolicySchema } from './policy'
import { ToolResultSchema, toolFields, toolFieldsProblem } from './tools'

/**
 * Whether a turn offers the model the built-in `recall_history` tool: `true` (this session's
 * covered events), or `{ "sessions": "all" }` (it may also search all of the user's sessions).
 */
export const RecallSchema = z.union([z.boolean(), z.strictObject({ sessions: z.enum(['this', 'all']) })]).openapi({
  description:
    'Offer the model the built-in recall_history tool: it may look up what compaction hid (at most 3 rounds). `{ "sessions": "all" }`: it may also search all of the user’s sessions (`scope: "all_sessions"`).',
})

export type RecallInput = z.output<typeof RecallSchema>

/**
 * What a turn's `recall` turns on: the tool, and its search of all of the user's sessions.
 *
 * @example
 * recallOf({ sessions: 'all' }) // { on: true, across: true }
 */
export const recallOf = (recall: RecallInput | undefined): { on: boolean; across: boolean } =>
  recall === undefined || recall === false
    ? { on: false, across: false }
    : recall === true
      ? { on: true, across: false }
      : { on: true, across: recall.sessions === 'all' }

export const TurnRequestSchema = z
  .strictObject({
    id: Id.optional().openapi({
      description: 'The user event’s id (content turns), or the REWIND’s (a regenerate): a retried id answers the stored result.',
    }),
    content: z
      .union([z.string().min(1, 'must not be empty'), PartsInputSchema])
      .optional()
      .openapi({ description: 'A new user message: a new turn. Text, or parts (images and documents).' }),
    toolResults: z
      .array(ToolResultSchema)
      .min(1)
      .max(SIZE_LIMITS.toolItems)
      .optional()
      .openapi({ description: 'Results for the newest turn’s pending tool calls: the same turn continues.' }),
    system: z.string().min(1, 'must not be empty').optional(),
    model: z.string().min(1).max(256).optional(),
    stream: z.boolean().optional(),
    compaction: z.union([z.literal(false), PolicySchema]).optional(),
    rewind: RewindPointSchema.optional().openapi({
      description:
        'With content: the turn runs on the view as of that point (an edit: `{ "to": <the edited user message>, "position": "before" }`); the REWIND is written with the turn.',
    }),
    regenerate: z.literal(true).optional().openapi({
      description:
        'Without content or toolResults: the newest turn’s reply is taken out of the view (one REWIND) and the model answers its user message again.',
    }),
    images: z.enum(['placeholder']).optional().openapi({
      description: '`placeholder`: each image and document goes to the model as its placeholder text (a model without vision).',
    }),
    recall: RecallSchema.optional(),
    memory: z.boolean().optional().openapi({
      description:
        'Offer the model the memory tool (`memory`, Anthropic’s memory_20250818 commands), run by the service against the user’s memory store (at most 3 rounds, with recall’s).',
    }),
    ...toolFields,
  })
  .superRefine((input, ctx) => {
    if (input.regenerate) {
      for (const field of ['content', 'toolResults', 'rewind'] as const)
        if (input[field] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'does not go with regenerate (the newest turn is answered again)',
          })
    } else if ((input.content === undefined) === (input.toolResults === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message: 'exactly one of content and toolResults is required (or regenerate)',
      })
    }
    if (input.rewind !== undefined && input.content === undefined && !input.regenerate) {
      ctx.addIssue({ code: 'custom', path: ['rewind'], message: 'goes only with content (the new message after the point)' })
    }
    if (input.id !== undefined && input.toolResults !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['id'],
        message: 'goes only with content (tool results are matched by their call ids)',
      })
    }
    const ids = (input.toolResults ?? []).map((result) => result.id)
    const twice = ids.findIndex((id, i) => ids.indexOf(id) !== i)
    if (twice >= 0)
      ctx.addIssue({ code: 'custom', path: ['toolResults', twice, 'id'], message: `"${ids[twice]}" is given twice` })
    const problem = toolFieldsProblem(input, recallOf(input.recall).on, input.memory === true)
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message })
  })
  .openapi('TurnRequest')

/** A chat turn as a client sends it. */
export type TurnRequest = z.output<typeof TurnRequestSchema>

/** A chat turn as the session object takes it: its images and documents read by the Worker (`wire/media`). */
export type TurnInput = Omit<TurnRequest, 'content' | 'toolResults'> & {
  content?: Content
  toolResults?: ToolResultInput[]
}

export const UsageSchema = z
  .object({
    promptTokens: z.int().openapi({ description: 'Every prompt token the upstream read, its cache’s included.' }),
    completionTokens: z.int(),
    totalTokens: z.int(),
    cachedPromptTokens: z
      .int()
      .optional()
      .openapi({ description: 'Of `promptTokens`, those read from the provider’s prompt cache (when it reported them).' }),
    cacheWriteTokens: z
      .int()
      .optional()
      .openapi({ description: 'Of `promptTokens`, those written to the provider’s prompt cache (Anthropic reports them).' }),
  })
  .nullable()
  .openapi('Usage')

const ErrorObject = z.object({ error: z.object({ code: z.string(), message: z.string() }) })

export const TurnResponseSchema = z
  .object({
    reply: EventSchema,
    status: z
      .enum(['completed', 'requires_action'])
      .openapi({ description: '`requires_action` when the reply calls tools: their results are owed (toolCalls).' }),
    toolCalls: z.array(ToolCallSchema).openapi({ description: 'The reply’s tool calls for the client; [] when completed.' }),
    events: z.array(EventSchema),
    compaction: z.union([CompactionResultSchema, ErrorObject]).nullable(),
    compactionScheduled: z.boolean().openapi({
      description:
        'The policy’s pass runs after this answer, in the background (`compaction` is then null); see /context `compacting`.',
    }),
    usage: UsageSchema,
    context: z
      .object({
        promptTokens: z.int().openapi({ description: 'The prompt’s estimated tokens.' }),
        budget: z.int().openapi({
          description: 'The turn model’s context (MODEL_CONTEXT_TOKENS or CHAT_CONTEXT_TOKENS) less its reply tokens.',
        }),
        compactions: z.array(CompactionResultSchema),
        retried: z.boolean(),
        calibration: z
          .object({ ratio: z.number(), samples: z.int() })
          .openapi({ description: 'What the model counts ÷ what we estimate, as learned by the session (after this turn).' }),
      })
      .nullable()
      .openapi({ description: 'How the prompt was fitted into the model’s context (null for a replayed turn).' }),
  })
  .openapi('TurnResponse')

/** A turn's answer, as the API writes it. */
export type TurnResponseJson = z.output<typeof TurnResponseSchema>
