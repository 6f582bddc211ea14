import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { SSEStreamingApi } from 'hono/streaming'
import { ServiceError, unwrap } from '../../contract/errors'
import { newConversationId } from '../../contract/ids'
import { LIMITS } from '../../contract/limits'
import { ItemListSchema, ItemsQuerySchema, ResponseParamsSchema, ResponsesRequestSchema, SessionId } from '../../contract/schemas'
import { answeringModel, onDivergeOf } from '../../doors'
import { type ResponseEvent, responseObject, responseStream, responseTarget } from '../../doors/responses/answer'
import { openAIError } from '../../doors/responses/errors'
import { itemList, itemsOf, itemTarget } from '../../doors/responses/items'
import { referencedIds, responsesInput } from '../../doors/responses/request'
import { implicitTtlOf, responsesPlace } from '../../doors/responses/session'
import { readDoorAnswer } from '../door-answer'
import { body, json, openAIErrors, routes, sessionOf } from './helpers'

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
    ...openAIErrors(400, 401, 404, 409, 413, 429, 502, 503),
  },
})

const getResponse = createRoute({
  method: 'get',
  path: '/v1/responses/{id}',
  summary: 'A stored response',
  request: { params: ResponseParamsSchema },
  responses: {
    200: json(ResponseSchema, 'The response, as it was answered'),
    ...openAIErrors(400, 401, 404),
  },
})

const listInputItems = createRoute({
  method: 'get',
  path: '/v1/responses/{id}/input_items',
  summary: 'The input items a stored response answered (what its request added to the session)',
  request: { params: ResponseParamsSchema, query: ItemsQuerySchema },
  responses: {
    200: json(ItemListSchema, 'A page of its input items'),
    ...openAIErrors(400, 401, 404),
  },
})

const send = async (sse: SSEStreamingApi, events: ResponseEvent[]) => {
  for (const { event, data } of events) await sse.writeSSE({ event, data: JSON.stringify(data) })
}

/** Where a request with no session and `store: false` runs: a session object that it never writes. */
const UNSTORED = 'unstored-responses'

/** A stored response by its id: its session's reply and the messages its request added; 404 when there is none. */
async function storedResponse(c: Context, id: string) {
  const target = responseTarget(id)
  const found =
    target && SessionId.safeParse(target.sessionId).success
      ? unwrap(await sessionOf(c, target.sessionId).storedAnswer(target.replyId))
      : null
  if (!target || !found) throw new ServiceError('not_found', `Response with id '${id}' not found.`)
  return { ...found, sessionId: target.sessionId }
}

/** The items a request refers to (`item_reference`), looked up in its session by the events they name. */
async function referencedItems(c: Context, sessionId: string, ids: string[]) {
  const events = [...new Set(ids.flatMap((id) => itemTarget(id)?.eventId ?? []))]
  if (events.length === 0) return new Map<string, Record<string, unknown>>()
  const found = unwrap(await sessionOf(c, sessionId).messagesByIds(events))
  return new Map(found.flatMap(itemsOf).map((item) => [item.id as string, item]))
}

/** The Responses door: `POST /v1/responses`. */
export const responsesRoutes = routes()
  .openapi(create, async (c) => {
    const request = c.req.valid('json')
    const headers = c.req.valid('header')
    const place = responsesPlace(request, headers, newConversationId)
    const sessionId = place.sessionId ?? UNSTORED
    const references = referencedIds(request)
    const { input, omitted } = await responsesInput(request, {
      idempotencyKey: headers['idempotency-key'],
      references:
        references.length > 0 && !place.implicit && place.sessionId ? await referencedItems(c, sessionId, references) : undefined,
    })
    if (omitted.length > 0) c.header('X-Tools-Omitted', omitted.join(', '))
    input.onDiverge = headers['x-on-diverge'] ?? onDivergeOf(c.env.ON_DIVERGE)
    if (headers['x-regenerate'] === 'true') input.regenerate = true
    if (place.sessionId === null) input.passthrough = true
    else c.header('X-Session-Id', place.sessionId)
    if (place.mustExist) input.mustExist = true
    if (place.after) input.after = place.after
    if (place.implicit) input.creates = { idleTtlSeconds: implicitTtlOf(c.env.RESPONSES_IMPLICIT_TTL_SECONDS) }
    const answer = await readDoorAnswer(await sessionOf(c, sessionId).door({ userId: c.get('userId'), sessionId }, input))
    if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
    const context = {
      model: request.model,
      conversation: answer.stored ? place.sessionId : null,
      store: answer.stored,
      ...(place.after ? { previousResponseId: place.after.responseId } : {}),
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
  .openapi(getResponse, async (c) => {
    const { answer, sessionId } = await storedResponse(c, c.req.valid('param').id)
    const model = answeringModel(answer, 'unknown')
    return c.json(responseObject(answer, { model, conversation: sessionId, store: true }), 200)
  })
  .openapi(listInputItems, async (c) => {
    const { input } = await storedResponse(c, c.req.valid('param').id)
    return c.json(itemList(input.flatMap(itemsOf), c.req.valid('query')), 200)
  })
