import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import { ServiceError, unwrap } from '../../contract/errors'
import { newConversationId } from '../../contract/ids'
import {
  CompactResponsesRequestSchema,
  ResponseCompactionSchema,
  ResponseSchema,
  type ResponsesRequest,
  ResponsesRequestSchema,
  SessionId,
} from '../../contract/schemas'
import type { DoorCompaction } from '../../doors'
import { sendAll } from '../../wire/door-events'
import { responseObject } from '../../wire/responses/answer'
import { compactedWindow, compactionEvents, compactionResponse } from '../../wire/responses/compaction'
import { responsesRequest } from '../../wire/responses/request'
import { responseContext } from '../../wire/responses/session'
import { ResponseStream } from '../../wire/responses/stream'
import { readDoorAnswer, wholeOf } from '../door-answer'
import type { AppEnv } from '../env'
import { readTurnAnswer } from '../turn-answer'
import { addressOf, blobsElsewhere, blobUrlOf, body, DoorHeaders, json, openAIErrors, routes, sessionOf } from './helpers'
import { storedResponsesRoutes } from './stored-responses'

const Headers = z.object({
  'x-session-id': SessionId.optional().openapi({
    description: 'The session, when the body names no `conversation`; created when absent.',
  }),
  'session-id': SessionId.optional().openapi({ description: 'Codex’s session header: the session, after X-Session-Id.' }),
  session_id: SessionId.optional(),
  'x-memory': z.enum(['on', 'off']).optional().openapi({
    description: '`on` offers the model the memory tool, run by the service against the user’s memory (see /turns `memory`).',
  }),
  ...DoorHeaders.shape,
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

/** Where a request with no session and `store: false` runs: a session object that it never writes. */
const UNSTORED = 'unstored-responses'

const compact = createRoute({
  method: 'post',
  path: '/v1/responses/compact',
  summary: 'Compacts the session a Responses client names, after storing what its input holds that the session does not',
  description:
    'A pass of the session’s strategy now, with a summary. Answers the view’s user messages as items, then one `compaction` item whose `encrypted_content` stands for the view in a later request’s input.',
  request: { headers: Headers, ...body(CompactResponsesRequestSchema) },
  responses: {
    200: json(ResponseCompactionSchema, 'The compacted window'),
    ...openAIErrors(400, 401, 404, 409, 413, 429, 502, 503),
  },
})

/** A Responses request as its session object takes it (see `responsesRequest`), its omitted tools and session said in headers. */
async function doorRequest(c: Context<AppEnv>, body: ResponsesRequest, headers: z.output<typeof Headers>) {
  const lookUp = async (sessionId: string, ids: string[]) => unwrap(await sessionOf(c, sessionId).messagesByIds(ids))
  const elsewhere = (sessionId: string | null) => blobsElsewhere(c, sessionId)
  const origin = new URL(c.req.url).origin
  const door = await responsesRequest(body, headers, c.env, newConversationId, origin, lookUp, elsewhere)
  if (door.omitted.length > 0) c.header('X-Tools-Omitted', door.omitted.join(', '))
  if (door.place.sessionId !== null) c.header('X-Session-Id', door.place.sessionId)
  const sessionId = door.place.sessionId ?? UNSTORED
  return { ...door, sessionId, address: addressOf(c, sessionId) }
}

/** Runs a compaction of the request's session (see `doorCompaction`). */
async function compaction(c: Context<AppEnv>, door: Awaited<ReturnType<typeof doorRequest>>): Promise<DoorCompaction> {
  if (door.place.sessionId === null)
    throw new ServiceError('invalid_request', 'input: a compaction needs a session (conversation, X-Session-Id or session-id)')
  const answer = await readTurnAnswer(sessionOf(c, door.sessionId).doorCompaction(door.address, door.request, door.upload))
  if (answer.first.type !== 'done') throw new Error('a compaction answered with a delta')
  return JSON.parse(await new Response(answer.first.result).text()) as DoorCompaction
}

/** The Responses door: `POST /v1/responses`, `POST /v1/responses/compact`. */
export const responsesRoutes = routes()
  .openapi(create, async (c) => {
    const body = c.req.valid('json')
    const door = await doorRequest(c, body, c.req.valid('header'))
    if (door.compact) {
      const done = await compaction(c, door)
      const context = { model: body.model, conversation: door.place.sessionId, store: true }
      if (!body.stream) return c.json(compactionResponse(done, context), 200)
      return streamSSE(c, (sse) => sendAll(sse, compactionEvents(done, context)))
    }
    const answer = await readDoorAnswer(sessionOf(c, door.sessionId).door(door.address, door.request, door.upload))
    if (answer.rewound !== null) c.header('X-Rewound', String(answer.rewound))
    const context = responseContext(body.model, door.place, answer.stored)
    if (!body.stream) return c.json(responseObject(wholeOf(answer), context), 200)
    return answer.stream(c, new ResponseStream(answer.replyId!, context))
  })
  .openapi(compact, async (c) => {
    const door = await doorRequest(c, c.req.valid('json'), c.req.valid('header'))
    const done = await compaction(c, door)
    return c.json(compactedWindow(done, door.place.sessionId!, blobUrlOf(c, door.sessionId)), 200)
  })
  .route('/', storedResponsesRoutes)
