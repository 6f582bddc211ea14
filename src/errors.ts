/**
 * The error contract shared by the Durable Objects and the HTTP layer. Durable Object methods
 * return these as values (errors thrown across RPC lose their type); the HTTP layer turns them
 * into responses of the contract's shape.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'version_conflict'
  | 'id_conflict'
  | 'session_exists'
  | 'payload_too_large'
  | 'context_overflow'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'upstream_error'
  | 'not_configured'
  | 'internal'

export interface ApiErrorBody {
  status: 400 | 401 | 404 | 409 | 413 | 415 | 429 | 500 | 502 | 503
  code: ErrorCode
  message: string
}

/** What an RPC method answers: a value, or an error of the contract. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ApiErrorBody }

/** A contract error raised inside a Durable Object; its method returns it as an Outcome. */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(readonly body: ApiErrorBody) {
    super(body.message)
  }
}

export const fail = (status: ApiErrorBody['status'], code: ErrorCode, message: string): ApiError =>
  new ApiError({ status, code, message })

export const notFound = () => fail(404, 'not_found', 'session not found')

/** Runs a Durable Object method body, turning an ApiError into an error Outcome. */
export async function outcome<T>(body: () => T | Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await body() }
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.body }
    throw error
  }
}
