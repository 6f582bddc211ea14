import { createRoute } from '@hono/zod-openapi'
import { ServiceError, unwrap } from '../../contract/errors'
import { newSessionId } from '../../contract/ids'
import { SIZE_LIMITS } from '../../contract/limits'
import {
  CreateSessionRequestSchema,
  ListQuerySchema,
  metadataFilters,
  PatchSessionRequestSchema,
  SessionListSchema,
  SessionParamsSchema,
  SessionSchema,
} from '../../contract/schemas'
import { userIndexStub } from '../../object/address'
import { decodeCursor, encodeCursor } from '../cursor'
import { body, errors, json, routes, SESSION_PATH, sessionOf } from './helpers'

const createSession = createRoute({
  method: 'post',
  path: '/v1/sessions',
  summary: 'Create a session',
  request: body(CreateSessionRequestSchema, false),
  responses: { 201: json(SessionSchema, 'The new session'), ...errors(400, 401, 409, 415) },
})

const listSessions = createRoute({
  method: 'get',
  path: '/v1/sessions',
  summary:
    "List the caller's sessions, newest first (or most recently updated first), filtered by words of their title or first message, metadata (`metadata.<key>=<value>`), update time or fork source",
  request: { query: ListQuerySchema },
  responses: { 200: json(SessionListSchema, 'A page of sessions'), ...errors(400, 401) },
})

const getSession = createRoute({
  method: 'get',
  path: SESSION_PATH,
  summary: 'Read a session',
  request: { params: SessionParamsSchema },
  responses: { 200: json(SessionSchema, 'The session'), ...errors(400, 401, 404) },
})

const patchSession = createRoute({
  method: 'patch',
  path: SESSION_PATH,
  summary: "Change a session's metadata, ttl or policy",
  request: { params: SessionParamsSchema, ...body(PatchSessionRequestSchema) },
  responses: { 200: json(SessionSchema, 'The session'), ...errors(400, 401, 404, 415) },
})

const deleteSession = createRoute({
  method: 'delete',
  path: SESSION_PATH,
  summary: 'Delete a session and its whole log',
  request: { params: SessionParamsSchema },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 404) },
})

/** Sessions: create, list, read, change, delete. */
export const sessionRoutes = routes()
  .openapi(createSession, async (c) => {
    const { id = newSessionId(), ...input } = c.req.valid('json')
    const session = unwrap(await sessionOf(c, id).create({ userId: c.get('userId'), sessionId: id }, input))
    return c.json(session, 201)
  })
  .openapi(listSessions, async (c) => {
    const query = c.req.valid('query')
    const {
      limit = SIZE_LIMITS.sessionsPage.default,
      cursor,
      q,
      updatedAfter,
      updatedBefore,
      forkedFrom,
      order = 'created',
    } = query
    const from = cursor ? decodeCursor(cursor) : null
    if (from && from.order !== order)
      throw new ServiceError('invalid_request', `query.cursor: a cursor of a list by ${from.order}`)
    const utc = (at: string | undefined) => (at === undefined ? undefined : new Date(at).toISOString())
    const filters = {
      order,
      metadata: metadataFilters(query),
      ...(q ? { q } : {}),
      ...(updatedAfter ? { updatedAfter: utc(updatedAfter) } : {}),
      ...(updatedBefore ? { updatedBefore: utc(updatedBefore) } : {}),
      ...(forkedFrom ? { forkedFrom } : {}),
    }
    const page = await userIndexStub(c.env, c.get('userId')).page(limit, from, new Date().toISOString(), filters)
    // Each session object is the truth about its session: fetched in parallel, absent ones dropped.
    const sessions = await Promise.all(page.entries.map((entry) => sessionOf(c, entry.id).get()))
    const found = sessions.flatMap((outcome) => (outcome.ok ? [outcome.value] : []))
    return c.json({ sessions: found, nextCursor: page.next ? encodeCursor({ ...page.next, order }) : null }, 200)
  })
  .openapi(getSession, async (c) => c.json(unwrap(await sessionOf(c, c.req.valid('param').id).get()), 200))
  .openapi(patchSession, async (c) => c.json(unwrap(await sessionOf(c, c.req.valid('param').id).patch(c.req.valid('json'))), 200))
  .openapi(deleteSession, async (c) => {
    unwrap(await sessionOf(c, c.req.valid('param').id).destroy())
    return c.body(null, 204)
  })
