import { createRoute, z } from '@hono/zod-openapi'
import { ChatCompletionRequestSchema, ChatCompletionSchema, SessionId } from '../../contract/schemas'
import { modelSettings } from '../../models/config'
import { chatCompletion } from '../../wire/chat-completions/answer'
import { chatCompletionRequest, chatSessionOf } from '../../wire/chat-completions/request'
import { ChatCompletionStream } from '../../wire/chat-completions/stream'
import { readDoorAnswer, wholeOf } from '../door-answer'
import { addressOf, body, DoorHeaders, errors, routes, sessionOf } from './helpers'

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session (else the body’s `session_id`); created when absent.',
  }),
  'x-memory': z.enum(['on', 'off']).optional().openapi({
    description: '`on` offers the model the memory tool, run by the service against the user’s memory (see /turns `memory`).',
  }),
  ...DoorHeaders.shape,
})

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

/** The chat-completions door: `/v1/chat/completions`. */
export const chatCompletionRoutes = routes()
chatCompletionRoutes.use('/v1/chat/completions', async (c, next) => {
  await next()
  // Every answer after authentication names the session it was about: a valid id only (a refused
  // header is never echoed back).
  const id = SessionId.safeParse(c.req.header('X-Session-Id'))
  if (id.success && id.data !== undefined && !c.res.headers.has('X-Session-Id')) c.res.headers.set('X-Session-Id', id.data)
})
chatCompletionRoutes.openapi(completions, async (c) => {
  const body = c.req.valid('json')
  const headers = c.req.valid('header')
  const sessionId = chatSessionOf(headers['x-session-id'] ?? body.session_id)
  c.header('X-Session-Id', sessionId)
  const { request, upload } = await chatCompletionRequest(body, headers, c.env)
  const answer = await readDoorAnswer(sessionOf(c, sessionId).door(addressOf(c, sessionId), request, upload))
  if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
  const requested = body.model ?? modelSettings(c.env).chatModel
  if (!body.stream) return c.json(chatCompletion(wholeOf(answer), requested), 200)
  const includeUsage = body.stream_options?.include_usage === true
  return answer.stream(c, new ChatCompletionStream(answer.replyId!, requested, { includeUsage }))
})
