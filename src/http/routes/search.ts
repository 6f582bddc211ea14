import { createRoute } from '@hono/zod-openapi'
import { ServiceError, unwrap } from '../../contract/errors'
import { SIZE_LIMITS } from '../../contract/limits'
import {
  AcrossSearchPageSchema,
  AcrossSearchQuerySchema,
  encodeAcrossCursor,
  SEARCH_START,
  SearchPageSchema,
  SearchQuerySchema,
  SessionParamsSchema,
} from '../../contract/schemas'
import { queryTerms } from '../../core'
import { type AcrossHit, searchAcross } from '../../object/across-sessions'
import { errors, json, routes, SESSION_PATH, sessionOf, streamedJson } from './helpers'

const searchSession = createRoute({
  method: 'get',
  path: `${SESSION_PATH}/search`,
  summary: 'Search every event of the session, covered by compaction or not',
  request: { params: SessionParamsSchema, query: SearchQuerySchema },
  responses: { 200: json(SearchPageSchema, 'Hits, best first; `nextCursor` continues'), ...errors(400, 401, 404) },
})

const searchSessions = createRoute({
  method: 'get',
  path: '/v1/search',
  summary: "Search all of the caller's sessions",
  request: { query: AcrossSearchQuerySchema },
  responses: {
    200: json(AcrossSearchPageSchema, 'Hits, best first, each naming its session; `nextCursor` continues'),
    ...errors(400, 401, 503),
  },
})

const json_ = (value: unknown) => JSON.stringify(value)

/** A hit across sessions as JSON: its event as its session wrote it, never parsed here. */
const hitJson = (hit: AcrossHit) =>
  `{"sessionId":${json_(hit.sessionId)},"sessionTitle":${json_(hit.sessionTitle)},"event":${hit.event},` +
  `"snippet":${json_(hit.snippet)},"covered":${hit.covered},"match":${json_(hit.match)}}`

/** Full-text search of a session's log, and of all of the caller's sessions. */
export const searchRoutes = routes()
  .openapi(searchSession, async (c) => {
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
  .openapi(searchSessions, async (c) => {
    const { q, mode = 'auto', limit = SIZE_LIMITS.searchPage.default, cursor = 0, ...filters } = c.req.valid('query')
    if (queryTerms(q).length === 0)
      throw new ServiceError('invalid_request', 'query.q: has no word to search for (letters or digits)')
    const query = {
      q,
      mode,
      limit,
      offset: cursor,
      ...(filters.sessions ? { sessions: filters.sessions } : {}),
      ...(filters.role ? { role: filters.role } : {}),
      // Times compared as UTC ISO strings, as the events' are kept.
      ...(filters.since ? { since: new Date(filters.since).toISOString() } : {}),
      ...(filters.until ? { until: new Date(filters.until).toISOString() } : {}),
    }
    const { hits, next } = await searchAcross(c.env, c.get('userId'), query, {
      background: (work) => c.executionCtx.waitUntil(work),
    })
    const body = `{"hits":[${hits.map(hitJson).join(',')}],"nextCursor":${json_(next === null ? null : encodeAcrossCursor(next))}}`
    return streamedJson<typeof AcrossSearchPageSchema>(c, body)
  })
