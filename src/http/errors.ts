import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ApiErrorBody, ErrorCode, Outcome } from '../errors'

/**
 * An error of the contract, thrown anywhere in the HTTP layer and rendered by `onError` as
 * `{"error": {"code", "message"}}` with its status (and extra headers, e.g. WWW-Authenticate).
 */
export class ApiHttpError extends HTTPException {
  constructor(
    status: ApiErrorBody['status'],
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(status, { message })
  }
}

export const apiError = (body: ApiErrorBody) => new ApiHttpError(body.status, body.code, body.message)

/** The value of a Durable Object's answer, or its contract error thrown. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw apiError(outcome.error)
  return outcome.value
}

export const errorJson = (c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string) =>
  c.json({ error: { code, message } }, status)

/** Hono's own exceptions (from its validators and middleware) in the contract's words. */
function fromHonoException(error: HTTPException): { status: ContentfulStatusCode; code: ErrorCode; message: string } {
  switch (error.status) {
    case 400:
      return {
        status: 400,
        code: 'invalid_request',
        message: /json/i.test(error.message) ? 'body: not valid JSON' : error.message,
      }
    case 413:
      return { status: 413, code: 'payload_too_large', message: error.message }
    case 415:
      return {
        status: 415,
        code: 'unsupported_media_type',
        message: 'the request body must be JSON (Content-Type: application/json)',
      }
    default:
      return { status: error.status as ContentfulStatusCode, code: 'internal', message: error.message }
  }
}

/** `app.onError`: the contract's error shape everywhere, never a stack trace. */
export function onError(error: Error, c: Context) {
  if (error instanceof ApiHttpError) {
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value)
    return errorJson(c, error.status as ContentfulStatusCode, error.code, error.message)
  }
  if (error instanceof HTTPException) {
    const { status, code, message } = fromHonoException(error)
    return errorJson(c, status, code, message)
  }
  const requestId = c.get('requestId' as never) as string | undefined
  console.error(
    JSON.stringify({ level: 'error', message: 'unhandled error', requestId, error: String(error), stack: error.stack }),
  )
  return errorJson(c, 500, 'internal', `internal error (request ${requestId ?? 'unknown'})`)
}
