import { OpenAPIHono } from '@hono/zod-openapi'
import { requestId } from 'hono/request-id'
import { LIMITS } from '../contract/limits'
import { authConfigOf, bearerJwt } from './auth'
import { jsonBody } from './body'
import type { AppEnv } from './env'
import { errorJson, onError } from './errors'
import { inspectorRoutes } from './inspector'
import { requestLimit } from './rate-limit'
import { apiRoutes } from './routes'
import { validationHook } from './validation'

/**
 * The HTTP API (contract: shared/spec/http-api.md). A thin router: auth, validation and error
 * mapping here; each request then makes one RPC call to the session's Durable Object.
 */
export const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

app.use(requestId())
app.use(async function jsonCharset(c, next) {
  await next()
  // The contract's JSON names its charset; Hono's c.json leaves it out.
  if (c.res.headers.get('Content-Type') === 'application/json')
    c.res.headers.set('Content-Type', 'application/json; charset=utf-8')
})
app.onError(onError)
app.notFound((c) => errorJson(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`))

const auth = bearerJwt<AppEnv>((c) => authConfigOf(c.env))
const limit = requestLimit()
/** The one `/v1` route that needs no token (and is counted toward no limit). */
const isPublic = (path: string) => path === '/v1/openapi.json'
app.use('/v1/*', async (c, next) => (isPublic(c.req.path) ? next() : auth(c, next)))
app.use('/v1/*', async (c, next) => (isPublic(c.req.path) ? next() : limit(c, next)))
app.use('/v1/*', jsonBody({ maxBytes: LIMITS.requestBytes }))

app.route('/', apiRoutes)
app.route('/', inspectorRoutes)

app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
app.doc31('/v1/openapi.json', {
  openapi: '3.1.0',
  info: {
    title: 'durable-sessions',
    version: '1',
    description: 'Conversation memory at the edge: append-only session logs, views and compaction.',
  },
  security: [{ bearerAuth: [] }],
})
