import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { type SSEStreamingApi, streamSSE } from 'hono/streaming'
import { ServiceError, unwrap } from '../../contract/errors'
import { newConversationId } from '../../contract/ids'
import { LIMITS } from '../../contract/limits'
import { CompactResponsesRequestSchema, type ResponsesRequest, ResponsesRequestSchema, SessionId } from '../../contract/schemas'
import { type DoorCompaction, onDivergeOf } from '../../doors'
import { type ResponseEvent, responseObject, responseStream } from '../../wire/responses/answer'
import { compactedWindow, compactionEvents, compactionResponse } from '../../wire/responses/compaction'
import { openAIError } from '../../wire/responses/errors'
import { itemsOf, itemTarget } from '../../wire/responses/items'
import { referencedIds, responsesInput } from '../../wire/responses/request'
import { implicitTtlOf, responsesPlace } from '../../wire/responses/session'
import { readDoorAnswer } from '../door-answer'
import { readTurnAnswer } from '../turn-answer'
import { body, isResent, json, openAIErrors, RetryCountHeader, routes, sessionOf } from './helpers'
import { ResponseSchema, storedResponsesRoutes } from './stored-responses'

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session, when the body names no `conversation`; created when absent.',
  }),
  'session-id': SessionId.optional().openapi({ description: 'Codex’s session header: the session, after X-Session-Id.' }),
  session_id: SessionId.optional(),
  'x-on-diverge': z.enum(['rewind', 'reject']).optional(),
  'x-regenerate': z.enum(['true', 'false']).optional(),
  'idempotency-key': z.string().min(1).max(LIMITS.idempotencyKeyChars).optional(),
  'x-stainless-retry-count': RetryCountHeader,
  'x-codex-turn-metadata': z.string().optional().openapi({
    description:
      'Sent by Codex on every request (it sends its whole history each time, and no retry count): without X-Session-Id, a request carrying it that is the whole conversation before the stored reply is a retry.',
  }),
})

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

const send = async (sse: SSEStreamingApi, events: ResponseEvent[]) => {
  for (const { event, data } of events) await sse.writeSSE({ event, data: JSON.stringify(data) })
}

/** Where a request with no session and `store: false` runs: a session object that it never writes. */
const UNSTORED = 'unstored-responses'

/** The items a request refers to (`item_reference`), looked up in its session by the events they name. */
async function referencedItems(c: Context, sessionId: string, ids: string[]) {
  const events = [...new Set(ids.flatMap((id) => itemTarget(id)?.eventId ?? []))]
  if (events.length === 0) return new Map<string, Record<string, unknown>>()
  const found = unwrap(await sessionOf(c, sessionId).messagesByIds(events))
  return new Map(found.flatMap(itemsOf).map((item) => [item.id as string, item]))
}

const compact = createRoute({
  method: 'post',
  path: '/v1/responses/compact',
  summary: 'Compacts the session a Responses client names, after storing what its input holds that the session does not',
  description:
    'A pass of the session’s strategy now, with a summary. Answers the view’s user messages as items, then one `compaction` item whose `encrypted_content` stands for the view in a later request’s input.',
  request: { headers: Headers, ...body(CompactResponsesRequestSchema) },
  responses: {
    200: json(z.looseObject({ object: z.literal('response.compaction'), output: z.array(z.unknown()) }), 'The compacted window'),
    ...openAIErrors(400, 401, 404, 409, 413, 429, 502, 503),
  },
})

/** A Responses request as its session object takes it: where it goes, and what it asks. */
async function doorRequest(c: Context, request: ResponsesRequest, headers: z.output<typeof Headers>) {
  const place = responsesPlace(request, headers, newConversationId)
  const sessionId = place.sessionId ?? UNSTORED
  const references = referencedIds(request)
  const { input, omitted, compact } = await responsesInput(request, {
    idempotencyKey: headers['idempotency-key'],
    references:
      references.length > 0 && !place.implicit && place.sessionId ? await referencedItems(c, sessionId, references) : undefined,
  })
  if (omitted.length > 0) c.header('X-Tools-Omitted', omitted.join(', '))
  input.onDiverge = headers['x-on-diverge'] ?? onDivergeOf(c.env.ON_DIVERGE)
  if (headers['x-regenerate'] === 'true') input.regenerate = true
  if (isResent(headers)) input.retried = true
  if (place.sessionId === null && input.capsule)
    throw new ServiceError(
      'invalid_request',
      `${input.capsule.field}: a compaction item goes back to the session it was made in: name it`,
    )
  if (place.sessionId === null) input.passthrough = true
  else c.header('X-Session-Id', place.sessionId)
  if (place.mustExist) input.mustExist = true
  if (place.after) input.after = place.after
  if (place.implicit) input.creates = { idleTtlSeconds: implicitTtlOf(c.env.RESPONSES_IMPLICIT_TTL_SECONDS) }
  const context = { model: request.model, conversation: place.sessionId, store: place.sessionId !== null }
  return { place, sessionId, input, compact, context, address: { userId: c.get('userId'), sessionId } }
}

/** Runs a compaction of the request's session (see `doorCompaction`). */
async function compaction(c: Context, request: Awaited<ReturnType<typeof doorRequest>>): Promise<DoorCompaction> {
  if (request.place.sessionId === null)
    throw new ServiceError('invalid_request', 'input: a compaction needs a session (conversation, X-Session-Id or session-id)')
  const answer = await readTurnAnswer(sessionOf(c, request.sessionId).doorCompaction(request.address, request.input))
  if (answer.first.type !== 'done') throw new Error('a compaction answered with a delta')
  return JSON.parse(await new Response(answer.first.result).text()) as DoorCompaction
}

/** The Responses door: `POST /v1/responses`, `POST /v1/responses/compact`. */
export const responsesRoutes = routes()
  .openapi(create, async (c) => {
    const request = c.req.valid('json')
    const door = await doorRequest(c, request, c.req.valid('header'))
    const { place, sessionId, input } = door
    if (door.compact) {
      const done = await compaction(c, door)
      if (!request.stream) return c.json(compactionResponse(done, door.context), 200)
      return streamSSE(c, (sse) => send(sse, compactionEvents(done, door.context)))
    }
    const answer = await readDoorAnswer(sessionOf(c, sessionId).door(door.address, input))
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
  .openapi(compact, async (c) => {
    const door = await doorRequest(c, c.req.valid('json'), c.req.valid('header'))
    return c.json(compactedWindow(await compaction(c, door), door.place.sessionId!), 200)
  })
  .route('/', storedResponsesRoutes)
