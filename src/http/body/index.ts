import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ServiceError } from '../../contract/errors'
import { formatProblem } from '../../core'
import { decodedBody } from './encodings'
import { hasLoneSurrogateEscape, loneSurrogate, loneSurrogateLine } from './surrogates'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

const isJson = (type: string | undefined) => /^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type ?? '')
/** Newline-delimited JSON (an import's `jsonl`). */
export const isJsonLines = (type: string | undefined) => /^application\/(x-ndjson|jsonl|x-jsonlines)\s*(;|$)/i.test(type ?? '')

/**
 * Request bodies: refused with 413 beyond `maxBytes` (declared, streamed, or once decoded); a
 * `Content-Encoding` of gzip, deflate or br decoded (another is a 415, a body that does not
 * decode a 400); a JSON body that is not valid UTF-8, or that holds a lone UTF-16 surrogate,
 * refused with 400 naming where (text is stored exactly as sent, so it must be text); an empty
 * JSON body treated as `{}`, so `curl -X POST -H 'Content-Type: application/json'` with no data
 * means "all defaults". Content types are checked by the routes (415).
 *
 * @param options - `maxBytes`: the largest body accepted, as sent and as decoded.
 * @throws {ServiceError} 413 `payload_too_large`; 415 `unsupported_media_type`; 400 `invalid_request` naming `body` or the field.
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
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'DELETE' || c.req.method === 'OPTIONS')
      return next()
    return limit(c, async () => {
      const type = c.req.header('Content-Type')
      if (isJson(type) || isJsonLines(type)) {
        // Hono caches body reads as promises: its validators then parse this text. Only the text
        // is kept, not the bytes it was read from (a 32 MiB body would be held twice over while
        // the request runs, three times once parsed).
        const text = await bodyText(c.req.raw, type, options.maxBytes)
        c.req.bodyCache = { text: Promise.resolve(text) } as unknown as typeof c.req.bodyCache
      }
      await next()
    })
  }
}

/** A body's checked text (see {@link jsonText}, {@link jsonLinesText}); its bytes are let go once it is read. */
async function bodyText(request: Request, type: string | undefined, maxBytes: number): Promise<string> {
  const raw = new Uint8Array(await request.arrayBuffer())
  const decoded = await decodedBody(raw, request.headers.get('Content-Encoding') ?? undefined, maxBytes)
  return isJson(type) ? jsonText(decoded) : jsonLinesText(decoded)
}

/** A body's text: UTF-8 or a 400. */
function utf8Text(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes)
  } catch (error) {
    if (error instanceof TypeError) throw new ServiceError('invalid_request', 'body: not valid UTF-8')
    throw error
  }
}

/** Newline-delimited JSON's text: UTF-8, with no lone surrogate escaped in any line (the 400 names the line). */
function jsonLinesText(bytes: Uint8Array): string {
  const text = utf8Text(bytes)
  const found = loneSurrogateLine(text)
  if (found) throw new ServiceError('invalid_request', `line ${found.line}: ${formatProblem('', found.problem)}`)
  return text
}

/** A JSON body's text: UTF-8, with no lone surrogate escaped in it; `{}` when empty. */
function jsonText(bytes: Uint8Array): string {
  const text = utf8Text(bytes)
  if (text.trim() === '') return '{}'
  if (hasLoneSurrogateEscape(text)) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return text // not JSON: the validator answers that
    }
    const problem = loneSurrogate(value)
    if (problem) throw new ServiceError('invalid_request', formatProblem(problem.path.length === 0 ? 'body' : '', problem))
  }
  return text
}
