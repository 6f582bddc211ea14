/**
 * The API's schemas: one source for request validation (field-level 400s) and for the OpenAPI
 * document served at /v1/openapi.json.
 */
import { z } from '@hono/zod-openapi'
import { type Trigger, triggerProblem, type Window, windowProblem } from '../core'
import { ID_PATTERN, LIMITS } from '../limits'

const ID_RULE = 'must be 1–128 characters of A-Z a-z 0-9 . _ : -'

export const Id = z.string().regex(ID_PATTERN, ID_RULE).openapi({ example: 'chat-42' })

/** Session ids appear in URL paths, where `.` and `..` are dot segments no client can send as a name. */
export const SessionId = Id.refine((id) => id !== '.' && id !== '..', 'must not be "." or ".." (URL dot segments)')

/** Nesting depth of a JSON value (0 for a primitive), measured level by level without recursion. */
function depthOf(value: unknown, limit: number): number {
  const isObject = (item: unknown): item is object => typeof item === 'object' && item !== null
  let depth = 0
  let level: unknown[] = [value]
  while (depth <= limit) {
    const next: unknown[] = []
    for (const item of level) if (isObject(item)) for (const child of Object.values(item)) next.push(child)
    if (!level.some(isObject)) return depth
    depth += 1
    level = next
  }
  return depth
}

export const Metadata = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    // Depth first: serializing a very deep value would overflow the stack.
    if (depthOf(value, LIMITS.metadataDepth) > LIMITS.metadataDepth) {
      ctx.addIssue({ code: 'custom', message: `must not be nested deeper than ${LIMITS.metadataDepth} levels` })
    } else if (new TextEncoder().encode(JSON.stringify(value)).length > LIMITS.metadataBytes) {
      ctx.addIssue({ code: 'custom', message: `must serialize to at most ${LIMITS.metadataBytes} bytes of JSON` })
    }
  })
  .openapi('Metadata', { type: 'object', additionalProperties: true, example: { channel: 'web' } })

const Timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2026-01-01T00:00:00.000Z' })

const ToolCall = z
  .strictObject({
    id: z.string().min(1).max(LIMITS.toolNameChars),
    name: z.string().min(1).max(LIMITS.toolNameChars),
    arguments: z.string(),
  })
  .openapi('ToolCall')

const ToolResponse = z
  .strictObject({
    id: z.string().min(1).max(LIMITS.toolNameChars),
    name: z.string().min(1).max(LIMITS.toolNameChars),
    data: z.string(),
  })
  .openapi('ToolResponse')

export const Message = z
  .strictObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.string().nullable(),
    toolCalls: z.array(ToolCall).min(1).max(LIMITS.toolItems).optional(),
    toolResponses: z.array(ToolResponse).min(1).max(LIMITS.toolItems).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.toolCalls && m.role !== 'assistant')
      ctx.addIssue({ code: 'custom', path: ['toolCalls'], message: 'only assistant messages carry tool calls' })
    if (m.toolResponses && m.role !== 'tool')
      ctx.addIssue({ code: 'custom', path: ['toolResponses'], message: 'only tool messages carry tool responses' })
    if (m.role === 'tool' && !m.toolResponses)
      ctx.addIssue({ code: 'custom', path: ['toolResponses'], message: 'a tool message needs at least one tool response' })
    if ((m.role === 'system' || m.role === 'user') && m.content === null)
      ctx.addIssue({ code: 'custom', path: ['content'], message: `a ${m.role} message needs text content` })
    if (m.role === 'assistant' && m.content === null && !m.toolCalls)
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'an assistant message needs content or tool calls' })
  })
  .openapi('Message')

export const EventInput = z
  .strictObject({
    id: Id.optional(),
    type: z.literal('MESSAGE', 'clients can only write MESSAGE events').optional(),
    synthetic: z.literal(false, 'clients cannot write synthetic events').optional(),
    message: Message,
    metadata: Metadata.optional(),
    timestamp: Timestamp.optional(),
  })
  .openapi('EventInput')

export const AppendRequest = z
  .strictObject({
    events: z.array(EventInput).min(1).max(LIMITS.eventsPerAppend),
    expectedVersion: z.int().min(0).optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Map<string, number>()
    body.events.forEach((event, i) => {
      if (event.id === undefined) return
      if (seen.has(event.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['events', i, 'id'],
          message: `"${event.id}" is also the id of events[${seen.get(event.id)}]`,
        })
      } else seen.set(event.id, i)
    })
  })
  .openapi('AppendRequest')

/** A schema checked by one of the core's validators, so HTTP and core agree on every rule. */
function checkedBy<T>(
  name: string,
  problemOf: (value: unknown) => { path: (string | number)[]; message: string } | null,
  doc: object,
) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const problem = problemOf(value)
      if (problem) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message })
    })
    .transform((value) => value as T)
    .openapi(name, doc)
}

const positive = { type: 'integer', minimum: 1 }

export const WindowSchema = checkedBy<Window>('Window', windowProblem, {
  oneOf: [
    { type: 'object', properties: { lastEvents: positive }, required: ['lastEvents'], additionalProperties: false },
    { type: 'object', properties: { lastTurns: positive }, required: ['lastTurns'], additionalProperties: false },
    { type: 'object', properties: { tokenBudget: positive }, required: ['tokenBudget'], additionalProperties: false },
  ],
  example: { lastTurns: 8 },
})

const triggerRef = { $ref: '#/components/schemas/Trigger' }
export const TriggerSchema = checkedBy<Trigger>('Trigger', (value) => triggerProblem(value), {
  description: 'When a compaction pass runs. anyOf/allOf take 1–16 triggers, nested at most 8 deep.',
  oneOf: [
    { type: 'object', properties: { turnCount: positive }, required: ['turnCount'], additionalProperties: false },
    { type: 'object', properties: { tokenCount: positive }, required: ['tokenCount'], additionalProperties: false },
    {
      type: 'object',
      properties: { anyOf: { type: 'array', items: triggerRef, minItems: 1, maxItems: 16 } },
      required: ['anyOf'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { allOf: { type: 'array', items: triggerRef, minItems: 1, maxItems: 16 } },
      required: ['allOf'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { always: { type: 'boolean', enum: [true] } },
      required: ['always'],
      additionalProperties: false,
    },
  ],
  example: { anyOf: [{ turnCount: 20 }, { tokenCount: 6000 }] },
})

export const SummarizerSchema = z
  .strictObject({
    model: z.string().min(1).max(256).optional(),
    overlapSize: z.int().min(0).max(100).optional(),
    systemPrompt: z
      .string()
      .min(1)
      .max(32 * 1024)
      .optional(),
    shadowPrompt: z
      .string()
      .min(1)
      .max(4 * 1024)
      .optional(),
  })
  .openapi('Summarizer')

export const StrategySchema = z
  .strictObject({
    window: WindowSchema.optional(),
    summarizer: SummarizerSchema.nullable().optional(),
  })
  .openapi('Strategy')

export const PolicySchema = z.strictObject({ trigger: TriggerSchema, strategy: StrategySchema.default({}) }).openapi('Policy')

const TtlSeconds = z.int().min(1).max(LIMITS.ttlSeconds)

export const CreateSessionRequest = z
  .strictObject({
    id: SessionId.optional(),
    ttlSeconds: TtlSeconds.optional(),
    metadata: Metadata.optional(),
    policy: PolicySchema.nullable().optional(),
  })
  .openapi('CreateSessionRequest')

export const PatchSessionRequest = z
  .strictObject({
    metadata: Metadata.optional(),
    ttlSeconds: TtlSeconds.nullable().optional(),
    policy: PolicySchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of metadata, ttlSeconds, policy')
  .openapi('PatchSessionRequest')

export const CompactRequest = z
  .strictObject({ trigger: TriggerSchema.optional(), strategy: StrategySchema.optional() })
  .openapi('CompactRequest')

export const TurnRequest = z
  .strictObject({
    id: Id.optional(),
    content: z.string().min(1, 'must not be empty'),
    system: z.string().min(1, 'must not be empty').optional(),
    model: z.string().min(1).max(256).optional(),
    stream: z.boolean().optional(),
    compaction: z.union([z.literal(false), PolicySchema]).optional(),
  })
  .openapi('TurnRequest')

// ── responses (documentation; the handlers build them from the store's objects) ──────────────

const Boundary = z
  .object({
    pinned: z.array(z.string()),
    summary: z.array(z.string()),
    preserved: z.array(z.string()),
    coveredEventCount: z.int(),
    tokensEstimatedSaved: z.int(),
  })
  .openapi('Boundary')

export const Event = z
  .object({
    id: z.string(),
    seq: z.int(),
    type: z.enum(['MESSAGE', 'COMPACTION']),
    timestamp: z.string(),
    synthetic: z.boolean(),
    tokens: z.int(),
    metadata: z.record(z.string(), z.unknown()),
    message: Message.optional(),
    boundary: Boundary.optional(),
  })
  .openapi('Event')

export const Session = z
  .object({
    id: z.string(),
    userId: z.string(),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    version: z.int(),
    policy: PolicySchema.nullable(),
    stats: z.object({ events: z.int(), viewEvents: z.int(), viewTokens: z.int(), turns: z.int() }).optional(),
  })
  .openapi('Session')

export const SessionList = z.object({ sessions: z.array(Session), nextCursor: z.string().nullable() }).openapi('SessionList')

export const AppendResponse = z.object({ version: z.int(), events: z.array(Event) }).openapi('AppendResponse')

export const LogPage = z.object({ events: z.array(Event), version: z.int(), nextAfter: z.int().nullable() }).openapi('LogPage')

export const View = z.object({ events: z.array(Event), tokens: z.int(), turns: z.int(), version: z.int() }).openapi('View')

export const OpenAIView = z
  .object({ messages: z.array(z.record(z.string(), z.unknown())) })
  .openapi('OpenAIView', { description: 'The view as OpenAI chat messages (latest system message only, first).' })

export const CompactionResult = z
  .object({
    unchanged: z.boolean(),
    reason: z.enum(['trigger_not_fired', 'nothing_to_cover', 'summarizer_declined', 'summarizer_failed', 'conflict']).nullable(),
    covered: z.array(Event),
    pinned: z.array(Event),
    summary: z.array(Event),
    preserved: z.array(Event),
    tokensEstimatedSaved: z.int(),
    boundary: Event.nullable(),
    version: z.int(),
  })
  .openapi('CompactionResult')

const Usage = z.object({ promptTokens: z.int(), completionTokens: z.int(), totalTokens: z.int() }).nullable().openapi('Usage')

export const TurnResponse = z
  .object({
    reply: Event,
    events: z.array(Event),
    compaction: z.union([CompactionResult, z.object({ error: z.object({ code: z.string(), message: z.string() }) })]).nullable(),
    usage: Usage,
    context: z
      .object({ promptTokens: z.int(), budget: z.int(), compactions: z.array(CompactionResult), retried: z.boolean() })
      .nullable()
      .openapi({ description: 'How the prompt was fitted into CHAT_CONTEXT_TOKENS (null for a replayed turn).' }),
  })
  .openapi('TurnResponse')

export const ErrorResponse = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error', { example: { error: { code: 'not_found', message: 'session not found' } } })

// ── paths and queries ─────────────────────────────────────────────────────────────────────────

export const SessionParams = z.object({ id: SessionId.openapi({ param: { name: 'id', in: 'path' } }) })

/** `limit`: 1..max, larger values clamped, zero/negative/non-numbers refused. */
const Limit = (defaults: { default: number; max: number }) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a positive integer')
    .transform(Number)
    .refine((n) => n >= 1, 'must be at least 1')
    .transform((n) => Math.min(n, defaults.max))
    .optional()
    .openapi({ param: { name: 'limit', in: 'query' }, example: String(defaults.default), type: 'integer' })

export const ListQuery = z.strictObject({
  limit: Limit(LIMITS.sessionsPage),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' } }),
})

export const LogQuery = z.strictObject({
  after: z
    .string()
    .regex(/^\d+$/, 'must be a sequence number ≥ 0')
    .transform(Number)
    .refine(Number.isSafeInteger, 'is too large')
    .optional()
    .openapi({ param: { name: 'after', in: 'query' }, type: 'integer' }),
  limit: Limit(LIMITS.eventsPage),
})

export const ViewQuery = z.strictObject({
  format: z
    .enum(['openai'])
    .optional()
    .openapi({ param: { name: 'format', in: 'query' } }),
})
