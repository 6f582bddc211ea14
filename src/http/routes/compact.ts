import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import {
  CompactionResultSchema,
  CompactionsPageSchema,
  CompactionsQuerySchema,
  CompactRequestSchema,
  ContextSchema,
  PinsRequestSchema,
  PinsResponseSchema,
  SessionParamsSchema,
  UndoParamsSchema,
  UndoRequestSchema,
  UndoResponseSchema,
} from '../../contract/schemas'
import { body, errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const compactSession = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/compact`,
  summary: 'Compact the view now, or with `dryRun` see what a pass would do',
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

const listCompactions = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/compactions`,
  summary: 'The session’s compactions, newest first, with their summaries and what they saved',
  request: { params: SessionParamsSchema, query: CompactionsQuerySchema },
  responses: { 200: json(CompactionsPageSchema, 'A page of compactions; `nextBefore` continues'), ...errors(400, 401, 404) },
})

const undoCompaction = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/compactions/{boundaryId}/undo`,
  summary: 'Undo the newest compaction pass: what it covered comes back, its summary leaves (one COMPACTION appended)',
  request: { params: UndoParamsSchema, ...body(UndoRequestSchema, false) },
  responses: {
    200: json(UndoResponseSchema, 'The COMPACTION written, `boundary.undoes` naming the pass'),
    ...errors(400, 401, 404, 409, 415),
  },
})

const pinMessages = createRoute({
  method: 'post',
  path: `${SESSION_PATH}/pins`,
  summary: 'Pin or unpin messages: no pass covers a pinned one (one PINS event appended, nothing else)',
  request: { params: SessionParamsSchema, ...body(PinsRequestSchema) },
  responses: {
    200: json(PinsResponseSchema, 'The PINS event written, and every message pinned now'),
    ...errors(400, 401, 404, 409, 415),
  },
})

/** One compaction pass now (or a dry run); the compactions so far and undoing the newest; a look at the session's context. */
export const compactRoutes = routes()
  .openapi(compactSession, async (c) =>
    streamedJson<typeof CompactionResultSchema>(
      c,
      unwrap(await sessionOf(c, c.req.valid('param').id).compact(c.req.valid('json'))),
    ),
  )
  .openapi(sessionContext, async (c) => c.json(unwrap(await sessionOf(c, c.req.valid('param').id).context()), 200))
  .openapi(listCompactions, async (c) => {
    const { limit = SIZE_LIMITS.compactionsPage.default, before = Number.MAX_SAFE_INTEGER } = c.req.valid('query')
    const page = unwrap(await sessionOf(c, c.req.valid('param').id).readCompactions(before, limit))
    return streamedJson<typeof CompactionsPageSchema>(c, page)
  })
  .openapi(pinMessages, async (c) => c.json(unwrap(await sessionOf(c, c.req.valid('param').id).pin(c.req.valid('json'))), 200))
  .openapi(undoCompaction, async (c) => {
    const { id, boundaryId } = c.req.valid('param')
    return c.json(unwrap(await sessionOf(c, id).undo(boundaryId, c.req.valid('json'))), 200)
  })
