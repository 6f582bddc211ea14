import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ServiceError } from '../../contract/errors'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Request bodies: refused with 413 beyond `maxBytes` (declared or streamed); a JSON body that is
 * not valid UTF-8 refused with 400 (rather than silently replacing bytes); an empty JSON body
 * treated as `{}`, so `curl -X POST -H 'Content-Type: application/json'` with no
 * data means "all defaults". Content types are checked by the routes (415).
 *
 * @param options - `maxBytes`: the largest body accepted.
 * @throws {ServiceError} 413 `payload_too_large`; 400 `invalid_request` naming `body`.
 *
 * @example
 * ```ts
 * app.use('/v1/*', jsonBody({ maxBytes: 8 * 1024 * 1024 }))
 * ```
 */
export function jsonBody(options: { maxBytes: number }): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw new ServiceError('payload_too_large', `the request body is larger than ${options.maxBytes} bytes`)
    },
  })
  return async function jsonBodyLimits(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'DELETE') return next()
    return limit(c, async () => {
      if (/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(c.req.header('Content-Type') ?? '')) {
        let text: string
        try {
          text = strictUtf8.decode(await c.req.arrayBuffer())
        } catch (error) {
          if (error instanceof TypeError) throw new ServiceError('invalid_request', 'body: not valid UTF-8')
          throw error
        }
        // Hono caches body reads as promises: its validators then parse this text.
        Object.assign(c.req.bodyCache, { text: Promise.resolve(text.trim() === '' ? '{}' : text) })
      }
      await next()
    })
  }
}
