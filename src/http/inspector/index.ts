import { type Context, Hono } from 'hono'
import { secureHeaders } from 'hono/secure-headers'
import type { StatusCode } from 'hono/utils/http-status'
import type { AppEnv } from '../env'
import { errorJson } from '../errors'

/**
 * The page may load only what this Worker serves, and talk only to it: no CDN, no inline script,
 * no framing. Styles set from script (the budget bar's widths) are CSSOM, which this allows.
 * Images are the session's own, read with the user's token and shown from `blob:` URLs.
 */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'blob:'],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
  crossOriginEmbedderPolicy: 'require-corp',
})

/** A file of the page from the static assets; the contract's 404 when there is none. */
async function inspectorFile(c: Context<AppEnv>) {
  const asset = await c.env.ASSETS.fetch(new Request(new URL(c.req.path, c.req.url), c.req.raw))
  if (asset.status === 404) return errorJson(c, 404, 'not_found', `no inspector file at ${c.req.path}`)
  // Through the context, so the headers set before (the request id) are kept.
  return c.newResponse(asset.body, asset.status as StatusCode, Object.fromEntries(asset.headers))
}

/**
 * `GET /inspect` and its files: the inspector page from the Worker's static assets (built by
 * `npm run build` into dist/inspector), with its security headers. The page needs no token; the
 * API calls it makes carry the person's own.
 *
 * @example
 * app.route('/', inspectorRoutes)
 */
export const inspectorRoutes = new Hono<AppEnv>()
for (const path of ['/inspect', '/inspect/*']) inspectorRoutes.use(path, pageHeaders).get(path, inspectorFile)
