import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { RewindRequestSchema, RewindResponseSchema, SessionParamsSchema } from '../../contract/schemas'
import { body, errors, json, routes, SESSION_PATH, sessionOf } from './helpers'

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

/** Branches of a session's history: rewind. */
export const branchRoutes = routes().openapi(rewindSession, async (c) =>
  c.json(unwrap(await sessionOf(c, c.req.valid('param').id).rewind(c.req.valid('json'))), 200),
)
