import type { Context, Env, MiddlewareHandler } from 'hono'

/** Which origins may call: a list, or any. */
export type AllowedOrigins = readonly string[] | '*'

export interface CorsOptions<E extends Env> {
  /** The origins allowed, read per request (a deployment's variable); none: no CORS at all. */
  origins: (c: Context<E>) => AllowedOrigins
  /** The methods the route at a path answers, for a preflight (none when no route is there). */
  methods: (path: string) => readonly string[]
  /** Request headers a cross-origin request may send. */
  allowHeaders: readonly string[]
  /** Request headers allowed by prefix beyond the list (an SDK's own headers, `x-stainless-*` say). */
  allowHeaderPrefixes?: readonly string[]
  /** Response headers a cross-origin caller may read. */
  exposeHeaders: readonly string[]
  /** How long a browser may keep a preflight's answer, in seconds. */
  maxAge: number
}

const isPreflight = (c: Context) => c.req.method === 'OPTIONS' && c.req.header('Access-Control-Request-Method') !== undefined

/**
 * Cross-origin requests from the allowed origins: every answer to one carries
 * `Access-Control-Allow-Origin` (that origin) and the headers it may read; a preflight is answered
 * 204 at once, without a token, with the route's methods and the allowed request headers it asked
 * for. Any other origin gets no CORS header (its preflight a bare 204); with no origins allowed
 * the middleware does nothing. No credentials: tokens travel in headers, not cookies.
 *
 * @example
 * ```ts
 * app.use('/v1/*', cors({ origins: (c) => ['https://app.example'], methods: () => ['GET'], allowHeaders: ['Authorization'], exposeHeaders: [], maxAge: 600 }))
 * ```
 */
export function cors<E extends Env>(options: CorsOptions<E>): MiddlewareHandler<E> {
  const listed = new Set(options.allowHeaders.map((name) => name.toLowerCase()))
  const prefixes = (options.allowHeaderPrefixes ?? []).map((prefix) => prefix.toLowerCase())
  const allowedHeader = (name: string) => listed.has(name) || prefixes.some((prefix) => name.startsWith(prefix))
  const expose = options.exposeHeaders.join(', ')
  return async function corsHeaders(c, next) {
    const allowed = options.origins(c)
    if (allowed !== '*' && allowed.length === 0) return next()
    const origin = c.req.header('Origin')
    const admitted = origin !== undefined && (allowed === '*' || allowed.includes(origin.toLowerCase()))
    if (isPreflight(c)) {
      if (!admitted) return c.body(null, 204, { Vary: 'Origin' })
      const asked = (c.req.header('Access-Control-Request-Headers') ?? '').split(',').map((name) => name.trim().toLowerCase())
      return c.body(null, 204, {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': options.methods(c.req.path).join(', '),
        'Access-Control-Allow-Headers': [
          ...listed,
          ...asked.filter((name) => name !== '' && allowedHeader(name) && !listed.has(name)),
        ].join(', '),
        'Access-Control-Max-Age': String(options.maxAge),
        Vary: 'Origin, Access-Control-Request-Headers',
      })
    }
    await next()
    c.res.headers.append('Vary', 'Origin')
    if (!admitted) return
    c.res.headers.set('Access-Control-Allow-Origin', origin)
    c.res.headers.set('Access-Control-Expose-Headers', expose)
  }
}

/**
 * A deployment's `CORS_ORIGINS`: comma-separated origins (`https://app.example`), or `*`; empty
 * or unset: none. Each entry is read as a URL's origin, so a trailing slash or capitals do not
 * matter; null for an entry that is not an origin.
 *
 * @example
 * corsOrigins('https://app.example/, http://localhost:5173') // { origins: ['https://app.example', 'http://localhost:5173'] }
 */
export function corsOrigins(text: string | undefined): { origins: AllowedOrigins } | { invalid: string } {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  if (entries.includes('*')) return { origins: '*' }
  const origins: string[] = []
  for (const entry of entries) {
    let origin: string
    try {
      origin = new URL(entry).origin
    } catch {
      return { invalid: entry }
    }
    if (origin === 'null' || new URL(entry).pathname.replace(/\/$/, '') !== '') return { invalid: entry }
    origins.push(origin)
  }
  return { origins }
}
