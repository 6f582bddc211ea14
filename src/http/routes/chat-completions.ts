import { createRoute, z } from '@hono/zod-openapi'
import type { SSEStreamingApi } from 'hono/streaming'
import { ServiceError } from '../../contract/errors'
import { LIMITS } from '../../contract/limits'
import { ChatCompletionRequestSchema, SessionId } from '../../contract/schemas'
import { answeringModel, onDivergeOf } from '../../doors'
import { modelSettings } from '../../models/config'
import { chatCompletion, chunkWriter, completionId } from '../../wire/chat-completions/answer'
import { chatCompletionInput } from '../../wire/chat-completions/request'
import { readDoorAnswer } from '../door-answer'
import { body, errors, isResent, RetryCountHeader, routes, sessionOf } from './helpers'

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session (else the body’s `session_id`); created when absent.',
  }),
  'x-recall': z
    .enum(['on', 'off'])
    .optional()
    .openapi({ description: '`on` offers the model the built-in recall_history tool (see /turns `recall`).' }),
  'x-on-diverge': z.enum(['rewind', 'reject']).optional().openapi({
    description:
      'A history that left the session’s (an edit, a rewrite): `rewind` to where it branched off (the default, or ON_DIVERGE), or `reject` with a 409 `history_diverged`.',
  }),
  'x-regenerate': z.enum(['true', 'false']).optional().openapi({
    description:
      '`true`: a request that repeats an answered one gets a new reply (the old one leaves the view) instead of the stored one.',
  }),
  'idempotency-key': z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyChars)
    .optional()
    .openapi({ description: 'A repeat with the same key and messages returns the first result without calling the model.' }),
  'x-stainless-retry-count': RetryCountHeader,
})

const ChatCompletionSchema = z
  .looseObject({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.int(),
    model: z.string(),
    choices: z.array(z.unknown()),
  })
  .openapi('ChatCompletion', { description: 'An OpenAI chat.completion (streamed: chat.completion.chunk frames, then [DONE]).' })

const completions = createRoute({
  method: 'post',
  path: '/v1/chat/completions',
  summary: 'OpenAI-compatible chat completions with the session’s memory',
  description:
    'Send the whole history or only what is new: each message is stored once. The session is named by `X-Session-Id` (or `session_id`) and created when absent; the response echoes `X-Session-Id`.',
  request: { headers: Headers, ...body(ChatCompletionRequestSchema) },
  responses: {
    200: {
      description: 'A chat.completion, or with `stream: true` server-sent chat.completion.chunk frames',
      content: { 'application/json': { schema: ChatCompletionSchema }, 'text/event-stream': { schema: ChatCompletionSchema } },
    },
    ...errors(400, 401, 409, 413, 415, 502, 503),
  },
})

/** The front door: `/v1/chat/completions`. */
export const chatCompletionRoutes = routes()
chatCompletionRoutes.use('/v1/chat/completions', async (c, next) => {
  await next()
  // Every answer after authentication names the session it was about: a valid id only (a refused
  // header is never echoed back).
  const id = SessionId.safeParse(c.req.header('X-Session-Id'))
  if (id.success && id.data !== undefined && !c.res.headers.has('X-Session-Id')) c.res.headers.set('X-Session-Id', id.data)
})
chatCompletionRoutes.openapi(completions, async (c) => {
  const request = c.req.valid('json')
  const headers = c.req.valid('header')
  const sessionId = headers['x-session-id'] ?? request.session_id
  if (sessionId === undefined) {
    throw new ServiceError(
      'invalid_request',
      'X-Session-Id: the header (or the body’s session_id) is required: it names the session',
    )
  }
  c.header('X-Session-Id', sessionId)
  const input = await chatCompletionInput(request, headers['idempotency-key'])
  if (headers['x-recall'] === 'on') input.request.recall = true
  input.onDiverge = headers['x-on-diverge'] ?? onDivergeOf(c.env.ON_DIVERGE)
  if (headers['x-regenerate'] === 'true') input.regenerate = true
  if (isResent(headers)) input.retried = true
  const address = { userId: c.get('userId'), sessionId }
  const answer = await readDoorAnswer(sessionOf(c, sessionId).door(address, input))
  if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
  const requested = request.model ?? modelSettings(c.env).chatModel
  if (!request.stream) {
    if (!answer.whole) throw new Error('a plain completion answered with a delta')
    return c.json(chatCompletion(answer.whole, requested), 200)
  }
  const chunks = chunkWriter(completionId(answer.replyId!), requested)
  const write = (sse: SSEStreamingApi, data: unknown) => sse.writeSSE({ data: JSON.stringify(data) })
  return answer.stream(c, {
    start: (sse) => write(sse, chunks.role()),
    end: (sse) => sse.writeSSE({ data: '[DONE]' }),
    text: (sse, text) => write(sse, chunks.content(text)),
    toolCall: (sse, call) => write(sse, chunks.toolCall(call)),
    error: (sse, error) => write(sse, { error: { ...error.body, type: error.code } }),
    async finish(sse, done) {
      await write(sse, { ...chunks.finish(done.finishReason), model: answeringModel(done, requested) })
      if (request.stream_options?.include_usage) await write(sse, chunks.usage(done.usage))
    },
  })
})
