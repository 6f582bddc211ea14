import { createRoute, OpenAPIHono, type z } from '@hono/zod-openapi'
import { streamSSE } from 'hono/streaming'
import { LIMITS } from '../../limits'
import { toOpenAIMessages } from '../../models/openai-format'
import { userIndexStub } from '../../store/address'
import { sessionClient } from '../../store/session/client'
import type { TurnFrame } from '../../store/session/turn'
import type { IndexCursor } from '../../store/user-index'
import { ApiHttpError, apiError, unwrap } from '../errors'
import * as s from '../schemas'
import { turnFrames } from '../turn-stream'
import { validationHook } from '../validation'

export type AppEnv = { Bindings: Env; Variables: { userId: string; requestId: string } }

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})
const body = <T extends z.ZodType>(schema: T, required = true) => ({
  body: { content: { 'application/json': { schema } }, required },
})
const errors = (...statuses: (400 | 401 | 404 | 409 | 413 | 415 | 502 | 503)[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(s.ErrorResponse, `Error (${status})`)])) as Record<
    number,
    ReturnType<typeof json<typeof s.ErrorResponse>>
  >

const sessionPath = '/v1/sessions/{id}'

/** The session routes; each handler makes one RPC call to the session's Durable Object. */
export const sessionRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

sessionRoutes.openapi(
  createRoute({
    method: 'post',
    path: '/v1/sessions',
    summary: 'Create a session',
    request: body(s.CreateSessionRequest, false),
    responses: { 201: json(s.Session, 'The new session'), ...errors(400, 401, 409, 415) },
  }),
  async (c) => {
    const input = c.req.valid('json')
    const userId = c.get('userId')
    const sessionId = input.id ?? `ses_${crypto.randomUUID().replaceAll('-', '')}`
    const session = unwrap(
      await sessionClient(c.env, userId, sessionId).create(
        { userId, sessionId },
        { ttlSeconds: input.ttlSeconds, metadata: input.metadata, policy: input.policy },
      ),
    )
    return c.json(session, 201)
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'get',
    path: '/v1/sessions',
    summary: "List the caller's sessions, newest first",
    request: { query: s.ListQuery },
    responses: { 200: json(s.SessionList, 'A page of sessions'), ...errors(400, 401) },
  }),
  async (c) => {
    const { limit = LIMITS.sessionsPage.default, cursor } = c.req.valid('query')
    const userId = c.get('userId')
    const page = await userIndexStub(c.env, userId).page(limit, cursor ? decodeCursor(cursor) : null, new Date().toISOString())
    // Each session object is the truth about its session: fetched in parallel, absent ones dropped.
    const sessions = await Promise.all(page.entries.map((entry) => sessionClient(c.env, userId, entry.id).get()))
    return c.json(
      {
        sessions: sessions.flatMap((outcome) => (outcome.ok ? [outcome.value] : [])),
        nextCursor: page.next ? encodeCursor(page.next) : null,
      },
      200,
    )
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'get',
    path: sessionPath,
    summary: 'Read a session',
    request: { params: s.SessionParams },
    responses: { 200: json(s.Session, 'The session'), ...errors(400, 401, 404) },
  }),
  async (c) => c.json(unwrap(await stubFor(c).get()), 200),
)

sessionRoutes.openapi(
  createRoute({
    method: 'patch',
    path: sessionPath,
    summary: "Change a session's metadata, ttl or policy",
    request: { params: s.SessionParams, ...body(s.PatchSessionRequest) },
    responses: { 200: json(s.Session, 'The session'), ...errors(400, 401, 404, 415) },
  }),
  async (c) => c.json(unwrap(await stubFor(c).patch(c.req.valid('json'))), 200),
)

sessionRoutes.openapi(
  createRoute({
    method: 'delete',
    path: sessionPath,
    summary: 'Delete a session and its whole log',
    request: { params: s.SessionParams },
    responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404) },
  }),
  async (c) => {
    unwrap(await stubFor(c).destroy())
    return c.body(null, 204)
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'post',
    path: `${sessionPath}/events`,
    summary: 'Append events (creates the session if needed)',
    request: { params: s.SessionParams, ...body(s.AppendRequest) },
    responses: {
      201: json(s.AppendResponse, 'Appended'),
      200: json(s.AppendResponse, 'Every event was already in the log: returned as stored'),
      ...errors(400, 401, 409, 413, 415),
    },
  }),
  async (c) => {
    const { events, expectedVersion } = c.req.valid('json')
    const { id } = c.req.valid('param')
    const userId = c.get('userId')
    const inputs = events.map(({ type: _type, synthetic: _synthetic, ...event }) => event)
    const result = unwrap(await sessionClient(c.env, userId, id).append({ userId, sessionId: id }, inputs, expectedVersion))
    return c.json({ version: result.version, events: result.events }, result.written ? 201 : 200)
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'get',
    path: `${sessionPath}/events`,
    summary: 'Read the log, COMPACTION events included',
    request: { params: s.SessionParams, query: s.LogQuery },
    responses: { 200: json(s.LogPage, 'A page of the log'), ...errors(400, 401, 404) },
  }),
  async (c) => {
    const { after = 0, limit = LIMITS.eventsPage.default } = c.req.valid('query')
    return c.json(unwrap(await stubFor(c).readLog(after, limit)), 200)
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'get',
    path: `${sessionPath}/view`,
    summary: 'Read the view: what the model is shown',
    request: { params: s.SessionParams, query: s.ViewQuery },
    responses: { 200: json(s.View.or(s.OpenAIView), 'The view'), ...errors(400, 401, 404) },
  }),
  async (c) => {
    const view = unwrap(await stubFor(c).readView())
    if (c.req.valid('query').format === 'openai') return c.json({ messages: toOpenAIMessages(view.events) }, 200)
    return c.json(view, 200)
  },
)

sessionRoutes.openapi(
  createRoute({
    method: 'post',
    path: `${sessionPath}/compact`,
    summary: 'Compact the view now',
    request: { params: s.SessionParams, ...body(s.CompactRequest, false) },
    responses: { 200: json(s.CompactionResult, 'The compaction result'), ...errors(400, 401, 404, 415, 503) },
  }),
  async (c) => c.json(unwrap(await stubFor(c).compact(c.req.valid('json'))), 200),
)

sessionRoutes.openapi(
  createRoute({
    method: 'post',
    path: `${sessionPath}/turns`,
    summary: 'Run a chat turn (creates the session if needed)',
    description:
      'With `stream: true` the answer is `text/event-stream`: `delta` events `{"text"}`, then one `done` event (the JSON response) or `error` event.',
    request: { params: s.SessionParams, ...body(s.TurnRequest) },
    responses: {
      200: {
        ...json(s.TurnResponse, 'The reply, the events written, the compaction result'),
        content: { ...json(s.TurnResponse, '').content, 'text/event-stream': { schema: s.TurnResponse } },
      },
      ...errors(400, 401, 409, 413, 415, 502, 503),
    },
  }),
  async (c) => {
    const input = c.req.valid('json')
    const { id } = c.req.valid('param')
    const userId = c.get('userId')
    const frames = interruptible(turnFrames(await sessionClient(c.env, userId, id).turn({ userId, sessionId: id }, input)))
    const first = await frames.next()
    if (first.done) throw new ApiHttpError(500, 'internal', 'the turn ended without an answer')
    // A failure before anything was sent is an ordinary error response.
    if (first.value.type === 'error') throw apiError(first.value.error)
    if (!input.stream) {
      if (first.value.type !== 'done') throw new ApiHttpError(500, 'internal', 'unexpected frame for a plain turn')
      return c.json(first.value.result as never, 200)
    }
    return streamSSE(c, async (sse) => {
      // A client that goes away stops the forwarding, not the turn: the object stores it anyway.
      sse.onAbort(() => void frames.return(undefined))
      for (let frame: TurnFrame | undefined = first.value; frame; frame = (await frames.next()).value ?? undefined) {
        if (frame.type === 'delta') await sse.writeSSE({ event: 'delta', data: JSON.stringify({ text: frame.text }) })
        else if (frame.type === 'done') await sse.writeSSE({ event: 'done', data: JSON.stringify(frame.result) })
        else
          await sse.writeSSE({
            event: 'error',
            data: JSON.stringify({ error: { code: frame.error.code, message: frame.error.message } }),
          })
        if (frame.type !== 'delta') break
      }
    }) as never
  },
)

/** The frames, with a session object that went away mid-turn (restart, abort) reported in the contract's words. */
async function* interruptible(frames: AsyncGenerator<TurnFrame>): AsyncGenerator<TurnFrame> {
  try {
    yield* frames
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', message: 'turn interrupted', error: String(error) }))
    yield {
      type: 'error',
      error: {
        status: 500,
        code: 'internal',
        message: 'the session was interrupted before the turn finished; retry it with the same id',
      },
    }
  }
}

function stubFor(c: { env: Env; get(key: 'userId'): string; req: { param(name: 'id'): string } }) {
  return sessionClient(c.env, c.get('userId'), c.req.param('id'))
}

const encodeCursor = (cursor: IndexCursor) => btoa(JSON.stringify([cursor.createdAt, cursor.id])).replaceAll('=', '')

function decodeCursor(cursor: string): IndexCursor {
  try {
    const [createdAt, id] = JSON.parse(atob(cursor)) as unknown[]
    if (typeof createdAt === 'string' && typeof id === 'string') return { createdAt, id }
  } catch {
    // fall through
  }
  throw new ApiHttpError(400, 'invalid_request', 'query.cursor: not a cursor this API issued')
}
