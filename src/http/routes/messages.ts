import { createRoute, z } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { AnthropicMessageSchema, CountTokensRequestSchema, MessagesRequestSchema, SessionId } from '../../contract/schemas'
import { recallOfHeader } from '../../wire/door-request'
import { MediaIntake } from '../../wire/media'
import { anthropicMessage } from '../../wire/messages/answer'
import { messagesRequest, messagesTranslation } from '../../wire/messages/request'
import { requiredSessionKey } from '../../wire/messages/session-key'
import { MessageStream, PING_MS } from '../../wire/messages/stream'
import { readDoorAnswer, wholeOf } from '../door-answer'
import { addressOf, body, DoorHeaders, json, routes, sessionOf } from './helpers'

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
  ...DoorHeaders.shape,
})

const AnthropicErrorSchema = z
  .object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) })
  .openapi('AnthropicError')

const anthropicErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(AnthropicErrorSchema, `Error (${status}), in Anthropic's shape`)]))

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
      content: {
        'application/json': { schema: AnthropicMessageSchema },
        'text/event-stream': { schema: AnthropicMessageSchema },
      },
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
    200: json(
      z
        .object({
          input_tokens: z.int(),
          context_management: z
            .object({ original_input_tokens: z.int() })
            .nullable()
            .openapi({ description: 'When the request had context_management: the tokens before its edits.' }),
        })
        .openapi('TokenCount'),
      'The prompt’s tokens, calibrated, after the request’s context edits',
    ),
    ...anthropicErrors(400, 401, 429),
  },
})

/** The session a request names (see `requiredSessionKey`). */
const sessionKeyOf = (headers: z.output<typeof Headers>, userId: string | null | undefined) =>
  requiredSessionKey(
    {
      sessionId: headers['x-session-id'],
      claudeCodeSessionId: headers['x-claude-code-session-id'],
      agentId: headers['x-claude-code-agent-id'],
    },
    userId,
  )

/** The Anthropic Messages door: `/v1/messages` and `/v1/messages/count_tokens`. */
export const messagesRoutes = routes()
  .openapi(messages, async (c) => {
    const body = c.req.valid('json')
    const headers = c.req.valid('header')
    const key = sessionKeyOf(headers, body.metadata?.user_id)
    c.header('X-Session-Id', key.sessionId)
    const { request, upload } = await messagesRequest(body, headers, c.env, key, c.req.header('anthropic-beta'))
    // A stream starts within PING_MS even when the turn waits (a pass making room, a slow model):
    // its pings say it goes on; an error after that is an `error` event.
    const reading = sessionOf(c, key.sessionId).door(addressOf(c, key.sessionId), request, upload)
    const answer = await readDoorAnswer(reading, body.stream ? { streamAfterMs: PING_MS } : {})
    if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
    if (!answer.stored) c.header('X-Stored', 'false')
    // Context management asked for: the answer says what it did (applied_edits), as Anthropic's does.
    const managed = body.context_management != null
    if (!body.stream) return c.json(anthropicMessage(wholeOf(answer), body.model, managed), 200)
    return answer.stream(c, new MessageStream(body.model, () => answer.replyId, answer.first.type === 'waiting', managed))
  })
  .openapi(countTokens, async (c) => {
    const body = c.req.valid('json')
    const headers = c.req.valid('header')
    const key = sessionKeyOf(headers, body.metadata?.user_id)
    const counted = await messagesTranslation(body, new MediaIntake())
    // The recall_history tool is in the prompt as the request's own turn would offer it.
    const recall = recallOfHeader(headers['x-recall'])
    if (recall !== undefined) counted.request.recall = recall
    const count = unwrap(await sessionOf(c, key.sessionId).countTokens(addressOf(c, key.sessionId), counted))
    const managed = count.beforeEdits === undefined ? null : { original_input_tokens: count.beforeEdits }
    return c.json({ input_tokens: count.tokens, context_management: managed }, 200)
  })
