import type { ErrorCode, ServiceError } from '../../contract/errors'

/** An error of the Messages door: Anthropic's status, `{"type": "error", "error": {"type", "message"}}` and headers. */
export interface AnthropicError {
  status: number
  body: { type: 'error'; error: { type: string; message: string } }
  headers: Record<string, string>
}

/** Each status of the contract as Anthropic's error type (and the status Anthropic answers it with, when another). */
const BY_STATUS: Record<number, { type: string; status?: number }> = {
  400: { type: 'invalid_request_error' },
  401: { type: 'authentication_error' },
  403: { type: 'permission_error' },
  404: { type: 'not_found_error' },
  409: { type: 'invalid_request_error' },
  413: { type: 'request_too_large' },
  415: { type: 'invalid_request_error' },
  429: { type: 'rate_limit_error' },
  500: { type: 'api_error' },
  502: { type: 'api_error' },
  503: { type: 'overloaded_error', status: 529 },
}

/**
 * Whether the same request sent again would fail again: a deployment with no model, and every 4xx
 * but a timeout's and a rate limit's. The SDKs retry a 409 and a 529 by default; this says not to.
 */
const mustNotRetry = (code: ErrorCode, status: number) =>
  code === 'not_configured' || (status >= 400 && status < 500 && status !== 408 && status !== 429)

/**
 * A contract error in Anthropic's words. A prompt that cannot fit is a 400 that says "prompt is
 * too long" (what Anthropic says, and what clients such as Claude Code compact on). An answer a
 * client must not send again carries `x-should-retry: false`, which the Anthropic SDKs (and so
 * Claude Code) obey before their own rules.
 *
 * @example
 * const { status, body } = anthropicError(new ServiceError('not_found', 'session not found'))
 */
export function anthropicError(error: ServiceError): AnthropicError {
  const overflow = error.code === 'context_overflow'
  const mapped = overflow ? { type: 'invalid_request_error', status: 400 } : (BY_STATUS[error.status] ?? { type: 'api_error' })
  const status = mapped.status ?? error.status
  const message = overflow ? `prompt is too long: ${error.message}` : error.message
  return {
    status,
    body: { type: 'error', error: { type: mapped.type, message } },
    headers: mustNotRetry(error.code, status) ? { ...error.headers, 'x-should-retry': 'false' } : error.headers,
  }
}
