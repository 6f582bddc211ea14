import type { ServiceError } from '../../contract/errors'

/** An error of the Responses door: OpenAI's `{"error": {"message", "type", "param", "code"}}`, `code` the contract's. */
export interface OpenAIError {
  status: number
  body: { error: { message: string; type: string; param: string | null; code: string } }
  headers: Record<string, string>
}

const TYPE_BY_STATUS: Record<number, string> = {
  401: 'authentication_error',
  429: 'rate_limit_error',
}

/** A message that starts with the field it is about (`input[2].call_id: …`) names it. */
const FIELD = /^([A-Za-z_][\w.[\]-]*): /

/**
 * A contract error in OpenAI's words: its status and headers as they are, `type`
 * `invalid_request_error` for a client's error (`authentication_error`, `rate_limit_error`) and
 * `server_error` for the service's or the model's, `param` the field the message names.
 *
 * @example
 * openAIError(new ServiceError('invalid_request', 'input[0].role: must be one of …')).body.error.param // 'input[0].role'
 */
export function openAIError(error: ServiceError): OpenAIError {
  const type = TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'server_error' : 'invalid_request_error')
  return {
    status: error.status,
    body: { error: { message: error.message, type, param: FIELD.exec(error.message)?.[1] ?? null, code: error.code } },
    headers: error.headers,
  }
}
