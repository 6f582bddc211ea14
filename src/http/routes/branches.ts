import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { LIMITS } from '../../contract/limits'
import {
  BranchesPageSchema,
  BranchesQuerySchema,
  RewindRequestSchema,
  RewindResponseSchema,
  SessionParamsSchema,
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

/** Branches of a session's history: rewind, and the branches rewinds left. */
export const branchRoutes = routes()
  .openapi(rewindSession, async (c) =>
    c.json(unwrap(await sessionOf(c, c.req.valid('param').id).rewind(c.req.valid('json'))), 200),
  )
  .openapi(listBranches, async (c) => {
    const { limit = LIMITS.compactionsPage.default, before = Number.MAX_SAFE_INTEGER } = c.req.valid('query')
    const page = unwrap(await sessionOf(c, c.req.valid('param').id).readBranches(before, limit))
    return streamedJson<typeof BranchesPageSchema>(c, page)
  })
