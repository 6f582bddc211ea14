import { createRoute, z } from '@hono/zod-openapi'
import type { SSEStreamingApi } from 'hono/streaming'
import { ServiceError, unwrap } from '../../contract/errors'
import { LIMITS } from '../../contract/limits'
import { CountTokensRequestSchema, MessagesRequestSchema, SessionId } from '../../contract/schemas'
import { onDivergeOf } from '../../doors'
import { anthropicMessage, messageId, messageStream, type StreamEvent } from '../../wire/messages/answer'
import { anthropicError } from '../../wire/messages/errors'
import { messagesInput } from '../../wire/messages/request'
import { messagesSessionKey } from '../../wire/messages/session-key'
import { readDoorAnswer } from '../door-answer'
import { body, isResent, json, RetryCountHeader, routes, sessionOf } from './helpers'

/** The Anthropic API versions the door speaks. */
const VERSIONS = ['2023-06-01', '2026-10-21'] as const

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session (else `x-claude-code-session-id`, else the session in `metadata.user_id`); created when absent.',
  }),
  'x-claude-code-session-id': z.string().optional().openapi({
    description:
      'Claude Code’s session id. Claude Code sends its whole history every time and its retries no retry count: without X-Session-Id, a request carrying it that is the whole conversation before the stored reply is a retry.',
  }),
  'x-claude-code-agent-id': z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1–64 characters of A-Z a-z 0-9 . _ -')
    .optional()
    .openapi({ description: 'A subagent: its requests are stored in a session of their own, `<session>:<agent>`.' }),
  'x-claude-code-request-class': z.string().max(64).optional().openapi({
    description:
      '`auxiliary` or `compaction` (Claude Code with CLAUDE_CODE_GATEWAY_HINT_HEADERS=1): sent to the model as it is, the session neither read nor written (`X-Stored: false`).',
  }),
  'anthropic-version': z.enum(VERSIONS).optional(),
  'x-on-diverge': z.enum(['rewind', 'reject']).optional(),
  'x-regenerate': z.enum(['true', 'false']).optional(),
  'idempotency-key': z.string().min(1).max(LIMITS.idempotencyKeyChars).optional(),
  'x-stainless-retry-count': RetryCountHeader,
})

const AnthropicErrorSchema = z
  .object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
  .openapi('AnthropicError')

const anthropicErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(AnthropicErrorSchema, `Error (${status}), in Anthropic's shape`)]))

const MessageSchema = z
  .looseObject({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(z.unknown()),
    stop_reason: z.string().nullable(),
    stop_sequence: z.string().nullable(),
    usage: z.looseObject({ input_tokens: z.int(), output_tokens: z.int() }),
  })
  .openapi('AnthropicMessage', { description: 'An Anthropic message (streamed: its server-sent events).' })

const messages = createRoute({
  method: 'post',
  path: '/v1/messages',
  summary: 'Anthropic Messages with the session’s memory',
  description:
    'Send the whole history or only what is new: each message is stored once (the rules of /v1/chat/completions). The session is named by `X-Session-Id`, `x-claude-code-session-id` or `metadata.user_id`; the response echoes `X-Session-Id`. Errors are in Anthropic’s shape.',
  request: { headers: Headers, ...body(MessagesRequestSchema) },
  responses: {
    200: {
      description: 'A message, or with `stream: true` its server-sent events',
      content: { 'application/json': { schema: MessageSchema }, 'text/event-stream': { schema: MessageSchema } },
    },
    ...anthropicErrors(400, 401, 409, 413, 429, 502, 529),
  },
})

const countTokens = createRoute({
  method: 'post',
  path: '/v1/messages/count_tokens',
  summary: 'The tokens of the prompt a Messages request would send (nothing written)',
  request: { headers: Headers, ...body(CountTokensRequestSchema) },
  responses: {
    200: json(z.object({ input_tokens: z.int() }).openapi('TokenCount'), 'The prompt’s tokens, calibrated'),
    ...anthropicErrors(400, 401, 429),
  },
})

/** The session a request names, or the 400 that says how to name one. */
function sessionKeyOf(headers: z.output<typeof Headers>, userId: string | null | undefined) {
  const key = messagesSessionKey(
    {
      sessionId: headers['x-session-id'],
      claudeCodeSessionId: headers['x-claude-code-session-id'],
      agentId: headers['x-claude-code-agent-id'],
    },
    userId,
  )
  if (!key) {
    throw new ServiceError(
      'invalid_request',
      'X-Session-Id: the header (or x-claude-code-session-id, or a session_id in metadata.user_id) is required: it names the session',
    )
  }
  const checked = SessionId.safeParse(key.sessionId)
  if (!checked.success) {
    throw new ServiceError(
      'invalid_request',
      `session id "${key.sessionId}": ${checked.error.issues[0]?.message ?? 'is invalid'}`,
    )
  }
  return key
}

const send = async (sse: SSEStreamingApi, events: StreamEvent[]) => {
  for (const { event, data } of events) await sse.writeSSE({ event, data: JSON.stringify(data) })
}

/** Request classes Claude Code marks as not part of the conversation: answered without the session. */
const PASSTHROUGH_CLASSES = new Set(['auxiliary', 'compaction'])

/** Anthropic sends a ping at least this often while a stream waits. */
const PING_MS = 10_000

/** The Anthropic Messages door: `/v1/messages` and `/v1/messages/count_tokens`. */
export const messagesRoutes = routes()
  .openapi(messages, async (c) => {
    const request = c.req.valid('json')
    const headers = c.req.valid('header')
    const key = sessionKeyOf(headers, request.metadata?.user_id)
    c.header('X-Session-Id', key.sessionId)
    const input = await messagesInput(request, headers['idempotency-key'], c.req.header('anthropic-beta'))
    input.onDiverge = headers['x-on-diverge'] ?? onDivergeOf(c.env.ON_DIVERGE)
    if (headers['x-regenerate'] === 'true') input.regenerate = true
    if (isResent(headers)) input.retried = true
    if (key.parentSessionId) input.creates = { metadata: { parentSessionId: key.parentSessionId } }
    input.sideConversations = true
    input.passthrough = PASSTHROUGH_CLASSES.has(headers['x-claude-code-request-class'] ?? '')
    const address = { userId: c.get('userId'), sessionId: key.sessionId }
    // A stream starts within PING_MS even when the turn waits (a pass making room, a slow model):
    // its pings say it goes on; an error after that is an `error` event.
    const answer = await readDoorAnswer(sessionOf(c, key.sessionId).door(address, input), {
      ...(request.stream ? { streamAfterMs: PING_MS } : {}),
    })
    if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
    if (!answer.stored) c.header('X-Stored', 'false')
    if (!request.stream) {
      if (!answer.whole) throw new Error('a plain message answered with a delta')
      return c.json(anthropicMessage(answer.whole, request.model), 200)
    }
    const events = messageStream(request.model)
    // The message begins with its first block (or its end): its id is the reply's, known by then.
    const begin = (sse: SSEStreamingApi) =>
      answer.replyId === null ? Promise.resolve() : send(sse, events.begin(messageId(answer.replyId)))
    return answer.stream(c, {
      start: (sse) => (answer.first.type === 'waiting' ? send(sse, events.ping()) : begin(sse)),
      text: async (sse, text) => {
        await begin(sse)
        await send(sse, events.text(text))
      },
      toolCall: async (sse, call) => {
        await begin(sse)
        await send(sse, events.toolCall(call))
      },
      reasoning: async (sse, block) => {
        await begin(sse)
        await send(sse, events.reasoning(block))
      },
      error: (sse, error) => sse.writeSSE({ event: 'error', data: JSON.stringify(anthropicError(error).body) }),
      keepAlive: { everyMs: PING_MS, write: (sse) => send(sse, events.ping()) },
      async finish(sse, done) {
        await begin(sse)
        await send(sse, events.end(done))
      },
    })
  })
  .openapi(countTokens, async (c) => {
    const request = c.req.valid('json')
    const headers = c.req.valid('header')
    const key = sessionKeyOf(headers, request.metadata?.user_id)
    const input = await messagesInput(request)
    const address = { userId: c.get('userId'), sessionId: key.sessionId }
    return c.json({ input_tokens: unwrap(await sessionOf(c, key.sessionId).countTokens(address, input)) }, 200)
  })
