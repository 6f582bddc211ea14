import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { CompactionResultSchema, CompactRequestSchema, ContextSchema, SessionParamsSchema } from '../../contract/schemas'
import { body, errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './openapi'

const compactSession = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/compact`,
  summary: 'Compact the view now',
  request: { params: SessionParamsSchema, ...body(CompactRequestSchema, false) },
  responses: { 200: json(CompactionResultSchema, 'The compaction result'), ...errors(400, 401, 404, 415, 502, 503) },
})

const sessionContext = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/context`,
  summary: 'What the session holds, what the model sees of it, and what compaction did (read-only)',
  request: { params: SessionParamsSchema },
  responses: { 200: json(ContextSchema, 'The session’s context'), ...errors(401, 404) },
})

/** One compaction pass now; a look at the session's context. */
export const compactRoutes = routes()
  .openapi(compactSession, async (c) =>
    streamedJson<typeof CompactionResultSchema>(
      c,
      unwrap(await sessionOf(c, c.req.valid('param').id).compact(c.req.valid('json'))),
    ),
  )
  .openapi(sessionContext, async (c) => c.json(unwrap(await sessionOf(c, c.req.valid('param').id).context()), 200))
