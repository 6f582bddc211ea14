import { createRoute } from '@hono/zod-openapi'
import { ServiceError, unwrap } from '../../contract/errors'
import { newSessionId } from '../../contract/ids'
import { SIZE_LIMITS } from '../../contract/limits'
import {
  BranchesPageSchema,
  BranchesQuerySchema,
  ForkRequestSchema,
  RewindRequestSchema,
  RewindResponseSchema,
  SessionParamsSchema,
  SessionSchema,
} from '../../contract/schemas'
import { body, errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const rewindSession = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/rewind`,
  summary: 'Take the view back to what it was as of an event (nothing is deleted: one REWIND is appended)',
  request: { params: SessionParamsSchema, ...body(RewindRequestSchema) },
  responses: {
    200: json(RewindResponseSchema, 'The REWIND written (null when the view would not change), and what it abandoned'),
    ...errors(400, 401, 404, 409, 415),
  },
})

const listBranches = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/branches`,
  summary: 'The runs of messages rewinds took off the lineage, newest first (each still in the log)',
  request: { params: SessionParamsSchema, query: BranchesQuerySchema },
  responses: { 200: json(BranchesPageSchema, 'A page of branches; `nextBefore` continues'), ...errors(400, 401, 404) },
})

const forkSession = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/fork`,
  summary: 'A new session whose view is this one’s as of an event (or now): the same events, summaries and pending calls',
  request: { params: SessionParamsSchema, ...body(ForkRequestSchema, false) },
  responses: {
    201: json(SessionSchema, 'The new session, with `forkedFrom`'),
    ...errors(400, 401, 404, 409, 415),
  },
})

/** Branches of a session's history: rewind, the branches rewinds left, forks. */
export const branchRoutes = routes()
  .openapi(rewindSession, async (c) =>
    c.json(unwrap(await sessionOf(c, c.req.valid('param').id).rewind(c.req.valid('json'))), 200),
  )
  .openapi(forkSession, async (c) => {
    const { id: sourceId } = c.req.valid('param')
    const { id = newSessionId(), ...input } = c.req.valid('json')
    if (id === sourceId) throw new ServiceError('session_exists', `session "${id}" already exists: it is the one forked`)
    const fork = unwrap(await sessionOf(c, sourceId).fork({ userId: c.get('userId'), sessionId: id }, input))
    return c.json(fork, 201)
  })
  .openapi(listBranches, async (c) => {
    const { limit = SIZE_LIMITS.compactionsPage.default, before = Number.MAX_SAFE_INTEGER } = c.req.valid('query')
    const page = unwrap(await sessionOf(c, c.req.valid('param').id).readBranches(before, limit))
    return streamedJson<typeof BranchesPageSchema>(c, page)
  })
