import { OpenAPIHono } from '@hono/zod-openapi'
import { requestId } from 'hono/request-id'
import { ServiceError } from '../contract/errors'
import { SIZE_LIMITS } from '../contract/limits'
import { mcpRoutes } from '../mcp'
import { authConfigOf, bearerJwt, vouchedFor } from './auth'
import { jsonBody } from './body'
import { cors, corsOrigins } from './cors'
import type { AppEnv } from './env'
import { errorJson, onError } from './errors'
import { inspectorRoutes } from './inspector'
import { requestLimiter } from './rate-limit'
import { apiRoutes } from './routes'
import { validationHook } from './validation'

/**
 * The HTTP API (contract: shared/spec/http-api.md). A thin router: auth, validation and error
 * mapping here; each request then makes one RPC call to the session's Durable Object.
 */
export const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

app.use(requestId())
app.use(async function responseHeaders(c, next) {
  await next()
  // Anthropic's clients read the request id from `request-id` (on every answer, errors included).
  c.res.headers.set('request-id', c.get('requestId'))
  // The contract's JSON names its charset; Hono's c.json leaves it out.
  if (c.res.headers.get('Content-Type') === 'application/json')
    c.res.headers.set('Content-Type', 'application/json; charset=utf-8')
})
app.onError(onError)
app.notFound((c) => errorJson(c, 404, 'not_found', `no route for ${c.req.method} ${c.req.path}`))

/** CORS_ORIGINS as read, by its text (read once per isolate). */
const origins = new Map<string, ReturnType<typeof corsOrigins>>()
const allowedOrigins = (env: Env) => {
  const text = env.CORS_ORIGINS ?? ''
  if (!origins.has(text)) origins.set(text, corsOrigins(text))
  const read = origins.get(text)!
  if ('invalid' in read) {
    throw new ServiceError('not_configured', `CORS_ORIGINS: "${read.invalid}" is not an origin (scheme://host[:port]), nor *`)
  }
  return read.origins
}

/** The methods of each route, from the OpenAPI document's routes (`{id}` matching one path segment). */
let routeMethods: { pattern: RegExp; method: string }[] | null = null
const methodsAt = (path: string) => {
  routeMethods ??= app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route'
      ? [
          {
            // A memory file's `{path}` holds slashes.
            pattern: new RegExp(`^${definition.route.path.replace('{path}', '.+').replace(/\{[^}]+\}/g, '[^/]+')}$`),
            method: definition.route.method.toUpperCase(),
          },
        ]
      : [],
  )
  return [...new Set(routeMethods.filter((route) => route.pattern.test(path)).map((route) => route.method))]
}

const auth = bearerJwt<AppEnv>((c) => authConfigOf(c.env))
const limit = requestLimiter()
/** The one `/v1` route that needs no token (and is counted toward no limit). */
const isPublic = (path: string) => path === '/v1/openapi.json'
app.use(
  '/v1/*',
  cors<AppEnv>({
    origins: (c) => allowedOrigins(c.env),
    methods: (path) => (isPublic(path) ? ['GET'] : methodsAt(path)),
    allowHeaders: [
      'Authorization',
      'Content-Type',
      'Content-Encoding',
      'Idempotency-Key',
      'If-Match',
      'Last-Event-ID',
      'X-Request-Id',
      'X-Session-Id',
      'X-Recall',
      'X-Memory',
      'X-On-Diverge',
      'X-Regenerate',
      'x-api-key',
      'anthropic-version',
      'anthropic-beta',
    ],
    // What the OpenAI and Anthropic SDKs send of their own, in a browser.
    allowHeaderPrefixes: ['x-stainless-', 'anthropic-'],
    exposeHeaders: [
      'ETag',
      'X-Request-Id',
      'X-Session-Id',
      'X-Rewound',
      'X-Stored',
      'X-Tools-Omitted',
      'request-id',
      'Retry-After',
      'x-should-retry',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-RateLimit-Scope',
    ],
    maxAge: 7200,
  }),
)
app.use('/v1/*', async (c, next) => (isPublic(c.req.path) ? next() : auth(c, next)))
app.use('/v1/*', async (c, next) => (isPublic(c.req.path) ? next() : limit(c, next)))
/** Routes whose bodies may carry images and documents (round4.md §1): up to 32 MiB, the others 8 MiB. */
const MEDIA_ROUTES =
  /^\/v1\/(sessions\/[^/]+\/(events|turns|import)|chat\/completions|messages(\/count_tokens)?|responses(\/compact)?|conversations(\/[^/]+\/items)?)$/
const bodies = jsonBody({ maxBytes: SIZE_LIMITS.requestBytes })
const mediaBodies = jsonBody({ maxBytes: SIZE_LIMITS.mediaRequestBytes })
app.use('/v1/*', async (c, next) => (MEDIA_ROUTES.test(c.req.path) ? mediaBodies(c, next) : bodies(c, next)))

app.route('/', apiRoutes)
app.route('/', inspectorRoutes)
// Each MCP tool is the API request it wraps, made inside the Worker as the caller `/mcp` verified
// (not verified again: ~0.1 ms of a tool call), limited and counted as any request.
app.route(
  '/',
  mcpRoutes({ auth, api: (c) => async (request) => app.fetch(vouchedFor(request, c.get('userId')), c.env, c.executionCtx) }),
)

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
