import type { ServiceError } from '../../contract/errors'

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
 * A contract error in Anthropic's words. A prompt that cannot fit is a 400 that says "prompt is
 * too long" (what Anthropic says, and what clients such as Claude Code compact on).
 *
 * @example
 * const { status, body } = anthropicError(new ServiceError('not_found', 'session not found'))
 */
export function anthropicError(error: ServiceError): AnthropicError {
  if (error.code === 'context_overflow') {
    return {
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${error.message}` } },
      headers: error.headers,
    }
  }
  const mapped = BY_STATUS[error.status] ?? { type: 'api_error' }
  return {
    status: mapped.status ?? error.status,
    body: { type: 'error', error: { type: mapped.type, message: error.message } },
    headers: error.headers,
  }
}
