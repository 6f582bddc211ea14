import { z } from '@hono/zod-openapi'
import type { Message, Problem } from '../../core'
import { ID_PATTERN, SIZE_LIMITS } from '../limits'
import { ID_RULE, Id, Limit, MetadataSchema, Timestamp } from './common'
import { ContentInputSchema, ContentSchema, ExportPartSchema } from './parts'

export const ToolCallSchema = z
  .strictObject({
    id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    name: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    arguments: z.string(),
  })
  .openapi('ToolCall')

/** A message's fields, its content and tool data of the given shape (as a client sends them, an Event shows them, an export writes them). */
function messageFields<C extends z.ZodType>(content: C) {
  const response = z.strictObject({
    id: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    name: z.string().min(1).max(SIZE_LIMITS.toolNameChars),
    data: content.openapi({ description: 'What the tool returned: text, or parts (a screenshot).' }),
  })
  return {
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: content.nullable(),
    toolCalls: z.array(ToolCallSchema).min(1).max(SIZE_LIMITS.toolItems).optional(),
    toolResponses: z.array(response).min(1).max(SIZE_LIMITS.toolItems).optional(),
  }
}

/** What a message must hold, by its role. */
function messageRules(m: { role: string; content: unknown; toolCalls?: unknown; toolResponses?: unknown }, ctx: z.RefinementCtx) {
  const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
  if (m.toolCalls && m.role !== 'assistant') problem('toolCalls', 'only assistant messages carry tool calls')
  if (m.toolResponses && m.role !== 'tool') problem('toolResponses', 'only tool messages carry tool responses')
  if (m.role === 'tool' && !m.toolResponses) problem('toolResponses', 'a tool message needs at least one tool response')
  if ((m.role === 'system' || m.role === 'user') && m.content === null)
    problem('content', `a ${m.role} message needs text content`)
  if (m.role === 'assistant' && m.content === null && !m.toolCalls)
    problem('content', 'an assistant message needs content or tool calls')
}

/** A message as a client sends it (its images and documents with their sources). */
export const MessageSchema = z.strictObject(messageFields(ContentInputSchema)).superRefine(messageRules).openapi('Message')

/** A message as an Event shows it (its images and documents by their blobs). */
export const MessageJsonSchema = z
  .strictObject({
    ...messageFields(ContentSchema),
    reasoning: z.array(z.looseObject({ provider: z.string(), type: z.string() })).optional(),
  })
  .openapi('StoredMessage')

/** A message as the log stores it: with the reasoning a model gave (an export's, an import's; the first event naming a blob carries its bytes). */
export const StoredMessageSchema = z
  .strictObject({
    ...messageFields(z.union([z.string(), z.array(ExportPartSchema).max(SIZE_LIMITS.contentParts)])),
    reasoning: z
      .array(z.looseObject({ provider: z.string(), type: z.string() }))
      .max(SIZE_LIMITS.contentParts)
      .optional(),
  })
  .superRefine(messageRules)

export const EventInputSchema = z
  .strictObject({
    id: Id.optional(),
    type: z.literal('MESSAGE', 'clients can only write MESSAGE events').optional(),
    synthetic: z.literal(false, 'clients cannot write synthetic events').optional(),
    message: MessageSchema,
    metadata: MetadataSchema.optional(),
    timestamp: Timestamp.optional(),
    pinned: z.boolean().optional().openapi({
      description: 'Pin it as it is appended: no pass ever covers it (not for a system message: the latest is always kept).',
    }),
  })
  .openapi('EventInput')

/** An event a client appends (`type` and `synthetic` only restate the defaults). */
export type EventInput = Omit<z.output<typeof EventInputSchema>, 'type' | 'synthetic'>

/** An event a client appends as the session object takes it: its images and documents read by the Worker (`wire/media`). */
export type AppendInput = Omit<EventInput, 'message'> & { message: Message }

/**
 * The rules of one append that span its events: 1 to 1000 of them, ids well-formed and unique
 * within the request. The schema below and the session object (whoever calls it) both check them
 * here, in the same words. Null when they hold.
 *
 * @example
 * appendProblem([{ id: 'a' }, { id: 'a' }]) // { path: ['events', 1, 'id'], message: '"a" is also the id of events[0]' }
 */
export function appendProblem(events: readonly { id?: string; pinned?: boolean; message?: { role: string } }[]): Problem | null {
  if (events.length === 0 || events.length > SIZE_LIMITS.eventsPerAppend) {
    return { path: ['events'], message: `must hold 1 to ${SIZE_LIMITS.eventsPerAppend} events` }
  }
  const seen = new Map<string, number>()
  for (const [i, { id, pinned, message }] of events.entries()) {
    if (pinned && message?.role === 'system')
      return { path: ['events', i, 'pinned'], message: 'a system message is not pinned: the latest one is always kept' }
    if (id === undefined) continue
    if (!ID_PATTERN.test(id)) return { path: ['events', i, 'id'], message: ID_RULE }
    const first = seen.get(id)
    if (first !== undefined) return { path: ['events', i, 'id'], message: `"${id}" is also the id of events[${first}]` }
    seen.set(id, i)
  }
  return null
}

export const AppendRequestSchema = z
  .strictObject({
    events: z.array(EventInputSchema).min(1).max(SIZE_LIMITS.eventsPerAppend),
    expectedVersion: z.int().min(0).optional(),
  })
  .superRefine((body, ctx) => {
    const problem = appendProblem(body.events)
    if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message })
  })
  .openapi('AppendRequest')

export const ClearedEntrySchema = z
  .strictObject({
    eventId: z.string().openapi({ description: 'The message cleared in the view (the log keeps it whole).' }),
    callIds: z.array(z.string()).min(1).openapi({ description: 'The calls whose results (or arguments) it clears.' }),
    inputs: z
      .boolean()
      .openapi({ description: 'True: an assistant message’s arguments to those calls; false: a tool message’s results.' }),
    tokens: z.int().min(0).openapi({ description: 'The message’s tokens as the view shows it.' }),
    callTokens: z
      .array(z.int().min(0))
      .openapi({ description: 'Each call’s result (or arguments) tokens before, as its notice says.' }),
  })
  .superRefine((entry, ctx) => {
    if (entry.callTokens.length !== entry.callIds.length)
      ctx.addIssue({ code: 'custom', path: ['callTokens'], message: 'must hold one count per call id' })
  })
  .openapi('ClearedEntry')

export const BoundarySchema = z
  .object({
    pinned: z.array(z.string()),
    summary: z.array(z.string()),
    preserved: z.array(z.string()),
    coveredEventCount: z.int(),
    tokensEstimatedSaved: z.int(),
    tokensBefore: z
      .int()
      .optional()
      .openapi({ description: 'The view’s tokens before the pass (boundaries written since they are recorded).' }),
    tokensAfter: z.int().optional().openapi({ description: 'The view’s tokens after the pass.' }),
    undoes: z.string().optional().openapi({ description: 'An undo’s: the pass it takes back (its view is the one without it).' }),
    held: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Those of `pinned` there because of a pin (not the system message, the preamble or a summary).' }),
    cleared: z
      .array(ClearedEntrySchema)
      .optional()
      .openapi({ description: 'The messages of the view a clearing cleared, in view order (absent: none).' }),
    prepared: z
      .literal(true)
      .optional()
      .openapi({ description: 'A pass that used a summary prepared in the background (round4 §6); absent otherwise.' }),
  })
  .openapi('Boundary')

export const RewindSchema = z
  .object({
    to: z.string().nullable().openapi({ description: 'The event the view was taken back to; null: the empty log.' }),
    position: z.enum(['at', 'before']).openapi({ description: 'The view as of that event (`at`) or as of the one before it.' }),
    reason: z.enum(['api', 'edit', 'regenerate', 'divergence']),
  })
  .openapi('Rewind')

export const EventSchema = z
  .object({
    id: z.string(),
    seq: z.int(),
    type: z.enum(['MESSAGE', 'COMPACTION', 'REWIND', 'PINS']),
    timestamp: z.string(),
    synthetic: z.boolean(),
    tokens: z.int(),
    metadata: z.record(z.string(), z.unknown()),
    message: MessageJsonSchema.optional(),
    boundary: BoundarySchema.optional().openapi({ description: 'A boundary’s (COMPACTION, REWIND): the view from then on.' }),
    rewind: RewindSchema.optional().openapi({ description: 'A REWIND’s point and reason.' }),
    pins: z
      .object({ pin: z.array(z.string()), unpin: z.array(z.string()) })
      .optional()
      .openapi({ description: 'A PINS event’s: the messages it pinned and unpinned.' }),
    pinned: z.boolean().openapi({ description: 'Pinned now (see /pins): no pass covers it. Always false but for a message.' }),
  })
  .openapi('Event')

export const AppendResponseSchema = z.object({ version: z.int(), events: z.array(EventSchema) }).openapi('AppendResponse')

export const LogQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(/^\d+$/, 'must be a sequence number ≥ 0')
    .transform(Number)
    .refine(Number.isSafeInteger, 'is too large')
    .optional()
    .openapi({ param: { name: 'after', in: 'query' }, type: 'integer' }),
  limit: Limit(SIZE_LIMITS.eventsPage),
})

export const LogPageSchema = z
  .object({ events: z.array(EventSchema), version: z.int(), nextAfter: z.int().nullable() })
  .openapi('LogPage')

export const ViewQuerySchema = z.strictObject({
  format: z
    .enum(['openai'])
    .optional()
    .openapi({ param: { name: 'format', in: 'query' } }),
})

export const ViewSchema = z
  .object({ events: z.array(EventSchema), tokens: z.int(), turns: z.int(), version: z.int() })
  .openapi('View')

export const OpenAIViewSchema = z
  .object({ messages: z.array(z.record(z.string(), z.unknown())) })
  .openapi('OpenAIView', { description: 'The view as OpenAI chat messages (latest system message only, first).' })

/** The contract's Event, as the API writes it. */
export type EventJson = z.output<typeof EventSchema>
/** `GET /events`: a page of the log. */
export type LogPageJson = z.output<typeof LogPageSchema>
/** `GET /view`: the view's events and counters. */
export type ViewJson = z.output<typeof ViewSchema>
/** `GET /view?format=openai`. */
export type OpenAIViewJson = z.output<typeof OpenAIViewSchema>
