import { z } from '@hono/zod-openapi'
import { Id } from './common'
import { CompactionResultSchema } from './compaction'
import { EventSchema, ToolCallSchema } from './events'
import { PolicySchema } from './policy'
import { toolFields, toolFieldsProblem } from './tools'

export const TurnRequestSchema = z
  .strictObject({
    id: Id.optional(),
    content: z.string().min(1, 'must not be empty'),
    system: z.string().min(1, 'must not be empty').optional(),
    model: z.string().min(1).max(256).optional(),
    stream: z.boolean().optional(),
    compaction: z.union([z.literal(false), PolicySchema]).optional(),
    ...toolFields,
  })
  .superRefine((input, ctx) => {
    const problem = toolFieldsProblem(input)
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message })
  })
  .openapi('TurnRequest')

/** A chat turn as the session object takes it. */
export type TurnInput = z.output<typeof TurnRequestSchema>

const UsageSchema = z
  .object({ promptTokens: z.int(), completionTokens: z.int(), totalTokens: z.int() })
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
    usage: UsageSchema,
    context: z
      .object({ promptTokens: z.int(), budget: z.int(), compactions: z.array(CompactionResultSchema), retried: z.boolean() })
      .nullable()
      .openapi({ description: 'How the prompt was fitted into CHAT_CONTEXT_TOKENS (null for a replayed turn).' }),
  })
  .openapi('TurnResponse')
