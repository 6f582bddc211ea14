import { createRoute } from '@hono/zod-openapi'
import { unwrap } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import { SEARCH_START, SearchPageSchema, SearchQuerySchema, SessionParamsSchema } from '../../contract/schemas'
import { errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const searchSession = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/search`,
  summary: 'Search every event of the session, covered by compaction or not',
  request: { params: SessionParamsSchema, query: SearchQuerySchema },
  responses: { 200: json(SearchPageSchema, 'Hits, best first; `nextCursor` continues'), ...errors(400, 401, 404) },
})

/** Full-text search of a session's log. */
export const searchRoutes = routes().openapi(searchSession, async (c) => {
  const {
    q,
    mode = 'auto',
    limit = SIZE_LIMITS.searchPage.default,
    scope = 'all',
    role,
    cursor = SEARCH_START,
    branches,
  } = c.req.valid('query')
  const query = { q, mode, limit, scope, from: cursor, branches: branches ?? 'lineage', ...(role ? { role } : {}) }
  return streamedJson<typeof SearchPageSchema>(c, unwrap(await sessionOf(c, c.req.valid('param').id).search(query)))
})
