import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { type ErrorCode, ServiceError } from '../../contract/errors'
import { log } from '../../log'
import { anthropicError } from '../../wire/messages/errors'
import { openAIError } from '../../wire/responses/errors'

/**
 * Whether a request is the Anthropic door's, whose errors are in Anthropic's shape: `/v1/messages`
 * and what is under it, and `/v1/models` asked with `anthropic-version`.
 */
export const speaksAnthropic = (c: Context) =>
  c.req.path === '/v1/messages' ||
  c.req.path.startsWith('/v1/messages/') ||
  (c.req.path === '/v1/models' && c.req.header('anthropic-version') !== undefined)

/** Whether a request is the Responses door's or its Conversations', whose errors are in OpenAI's shape. */
const speaksResponses = (c: Context) =>
  ['/v1/responses', '/v1/conversations'].some((door) => c.req.path === door || c.req.path.startsWith(`${door}/`))

/** A response with the contract's error body (Anthropic's or OpenAI's, on their doors). */
export function errorJson(c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string) {
  return speaksAnthropic(c) || speaksResponses(c)
    ? errorResponse(c, new ServiceError(code, message))
    : c.json({ error: { code, message } }, status)
}

/** An error's response, with its headers, in the shape of the request's door. */
function errorResponse(c: Context, error: ServiceError) {
  if (speaksAnthropic(c) || speaksResponses(c)) {
    const answer = speaksAnthropic(c) ? anthropicError(error) : openAIError(error)
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value)
    return c.json(answer.body, answer.status as ContentfulStatusCode)
  }
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
  return c.json({ error: error.body }, error.status as ContentfulStatusCode)
}

/** Hono's own exceptions (its body limit and validators) in the contract's words. */
function fromHonoException(error: HTTPException): ServiceError {
  switch (error.status) {
    case 413:
      return new ServiceError('payload_too_large', error.message)
    case 415:
      return new ServiceError('unsupported_media_type', 'the request body must be JSON (Content-Type: application/json)')
    case 400:
      // The body middleware has checked size and UTF-8, and our validation hook throws its own
      // errors: the one 400 Hono raises is its JSON validator's parse failure.
      return new ServiceError('invalid_request', 'body: not valid JSON')
    default:
      return new ServiceError('internal', error.message)
  }
}

/**
 * `app.onError`: every error in the contract's shape — a {@link ServiceError} with its status and
 * headers, Hono's exceptions translated, anything else a 500 that names the request id and never
 * shows a stack trace.
 *
 * @example
 * app.onError(onError)
 */
export function onError(error: Error, c: Context) {
  const known = error instanceof ServiceError ? error : error instanceof HTTPException ? fromHonoException(error) : null
  if (known) return errorResponse(c, known)
  const requestId = c.get('requestId' as never) as string | undefined
  log.error('unhandled error', { requestId, error: String(error), stack: error.stack })
  return errorJson(c, 500, 'internal', `internal error (request ${requestId ?? 'unknown'})`)
}
