import { createRoute, z } from '@hono/zod-openapi'
import type { SSEStreamingApi } from 'hono/streaming'
import { ServiceError } from '../../contract/errors'
import { LIMITS } from '../../contract/limits'
import { ResponsesRequestSchema, SessionId } from '../../contract/schemas'
import { onDivergeOf } from '../../doors'
import { type ResponseEvent, responseObject, responseStream, responseTarget } from '../../doors/responses/answer'
import { openAIError } from '../../doors/responses/errors'
import { responsesInput } from '../../doors/responses/request'
import { readDoorAnswer } from '../door-answer'
import { body, json, routes, sessionOf } from './helpers'

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session, when the body names no `conversation`; created when absent.',
  }),
  'session-id': SessionId.optional().openapi({ description: 'Codex’s session header: the session, after X-Session-Id.' }),
  session_id: SessionId.optional(),
  'x-on-diverge': z.enum(['rewind', 'reject']).optional(),
  'x-regenerate': z.enum(['true', 'false']).optional(),
  'idempotency-key': z.string().min(1).max(LIMITS.idempotencyKeyChars).optional(),
})

const OpenAIErrorSchema = z
  .object({ error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() }) })
  .openapi('OpenAIError')

const ResponseSchema = z
  .looseObject({ id: z.string(), object: z.literal('response'), status: z.string(), output: z.array(z.unknown()) })
  .openapi('Response', { description: 'An OpenAI response (streamed: its server-sent events).' })

const create = createRoute({
  method: 'post',
  path: '/v1/responses',
  summary: 'OpenAI Responses with the session’s memory',
  description:
    'Send the whole input or only what is new: each item is stored once (the rules of /v1/chat/completions). The session is `conversation`, else `X-Session-Id`, else `session-id`; with none, `store: false` answers without storing. Errors are in OpenAI’s shape.',
  request: { headers: Headers, ...body(ResponsesRequestSchema) },
  responses: {
    200: {
      description: 'A response, or with `stream: true` its server-sent events',
      content: { 'application/json': { schema: ResponseSchema }, 'text/event-stream': { schema: ResponseSchema } },
    },
    ...Object.fromEntries(
      [400, 401, 404, 409, 413, 429, 502, 503].map((status) => [
        status,
        json(OpenAIErrorSchema, `Error (${status}), in OpenAI's shape`),
      ]),
    ),
  },
})

const send = async (sse: SSEStreamingApi, events: ResponseEvent[]) => {
  for (const { event, data } of events) await sse.writeSSE({ event, data: JSON.stringify(data) })
}

/** Where a request with no session and `store: false` runs: a session object that it never writes. */
const UNSTORED = 'unstored-responses'

/** The Responses door: `POST /v1/responses`. */
export const responsesRoutes = routes().openapi(create, async (c) => {
  const request = c.req.valid('json')
  const headers = c.req.valid('header')
  const conversation = typeof request.conversation === 'string' ? request.conversation : request.conversation?.id
  const previous = request.previous_response_id ?? undefined
  if (conversation !== undefined && previous !== undefined)
    throw new ServiceError('invalid_request', 'previous_response_id: give conversation or previous_response_id, not both')
  const found = previous === undefined ? null : responseTarget(previous)
  // A response id names a session of the caller's, or none (an id made up names nothing).
  const target = found && SessionId.safeParse(found.sessionId).success ? found : null
  if (previous !== undefined && !target)
    throw new ServiceError('previous_response_not_found', `previous_response_id: response "${previous}" not found`)
  const named = conversation ?? target?.sessionId ?? headers['x-session-id'] ?? headers['session-id'] ?? headers.session_id
  if (named === undefined && request.store !== false) {
    throw new ServiceError(
      'invalid_request',
      'X-Session-Id: name the session (the conversation field, X-Session-Id or session-id), or send store: false for an answer that is not stored',
    )
  }
  const { input, omitted } = await responsesInput(request, headers['idempotency-key'])
  if (omitted.length > 0) c.header('X-Tools-Omitted', omitted.join(', '))
  input.onDiverge = headers['x-on-diverge'] ?? onDivergeOf(c.env.ON_DIVERGE)
  if (headers['x-regenerate'] === 'true') input.regenerate = true
  if (named === undefined) input.passthrough = true
  else c.header('X-Session-Id', named)
  if (conversation !== undefined) input.mustExist = true
  if (target && previous) input.after = { replyId: target.replyId, responseId: previous }
  const sessionId = named ?? UNSTORED
  const answer = await readDoorAnswer(await sessionOf(c, sessionId).door({ userId: c.get('userId'), sessionId }, input))
  if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
  const context = {
    model: request.model,
    conversation: answer.stored ? (named ?? null) : null,
    store: answer.stored,
    ...(previous ? { previousResponseId: previous } : {}),
  }
  if (!request.stream) {
    if (!answer.whole) throw new Error('a plain response answered with a delta')
    return c.json(responseObject(answer.whole, context), 200)
  }
  const events = responseStream(answer.replyId!, context)
  return answer.stream(c, {
    start: (sse) => send(sse, events.start()),
    text: (sse, text) => send(sse, events.text(text)),
    toolCall: (sse, call) => send(sse, events.toolCall(call)),
    error: (sse, error) => {
      const { code, message } = openAIError(error).body.error
      return send(sse, events.failed(code, message))
    },
    finish: (sse, done) => send(sse, events.end(done)),
  })
})
