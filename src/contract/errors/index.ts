import {
  MissingBlobError,
  RewindPointError,
  SessionEndedError,
  SessionExistsError,
  SessionMissingError,
  SessionWipingError,
  VersionConflictError,
} from '../../core/session-store/errors'

/**
 * The error contract: every error code with its HTTP status, the one error class the layers
 * throw, and the value a Durable Object answers across RPC (an error thrown across RPC loses its
 * type, so methods answer an {@link Outcome} instead).
 */

/** Each error code of the contract and its HTTP status: the one place a code's status is decided. */
export const ERROR_STATUS = {
  invalid_request: 400,
  previous_response_not_found: 400,
  /** A feature of a client's wire format the service does not offer, named. */
  unsupported: 400,
  unauthorized: 401,
  not_found: 404,
  version_conflict: 409,
  id_conflict: 409,
  session_exists: 409,
  no_pending_tool_calls: 409,
  tool_results_incomplete: 409,
  history_diverged: 409,
  nothing_to_regenerate: 409,
  compaction_superseded: 409,
  /** A memory path that is taken: a file where a directory is needed, a directory where a file is, a rename's destination. */
  path_conflict: 409,
  /** An `If-Match` naming a version that is no longer the file's. */
  precondition_failed: 412,
  payload_too_large: 413,
  context_overflow: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  upstream_error: 502,
  upstream_overloaded: 503,
  not_configured: 503,
  auth_unavailable: 503,
  /** What a request needs is not ready yet (a session's last incarnation still being wiped): retry shortly. */
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode]

/** The `error` member of the contract's error body: `{"error": {"code", "message"}}`. */
export interface ErrorBody {
  code: ErrorCode
  message: string
}

/**
 * An error of the contract, thrown in any layer: its code decides its status, and the HTTP layer
 * renders it as the contract's error body with its extra headers (e.g. `WWW-Authenticate`).
 *
 * @example
 * throw new ServiceError('id_conflict', 'event id "e1" is already in the log with a different message')
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError'
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  get status(): ErrorStatus {
    return ERROR_STATUS[this.code]
  }

  get body(): ErrorBody {
    return { code: this.code, message: this.message }
  }

  /** The error as it crosses RPC and frames: its body, and its headers when it has any. */
  get wire(): ErrorWire {
    return Object.keys(this.headers).length > 0 ? { ...this.body, headers: this.headers } : this.body
  }

  /** A {@link ServiceError} again, from its wire form. */
  static of(wire: ErrorWire): ServiceError {
    return new ServiceError(wire.code, wire.message, wire.headers)
  }
}

/** A {@link ServiceError} as data: the body, and headers such as `Retry-After` for the response. */
export interface ErrorWire extends ErrorBody {
  headers?: Record<string, string>
}

export const sessionNotFound = () => new ServiceError('not_found', 'session not found')

/** How long a client waits before it asks again for a session whose last incarnation is being wiped. */
const WIPING_RETRY_SECONDS = '30'

/**
 * What a client is told of an error: a {@link ServiceError} as it is, storage's named failures
 * (see the core's `session-store/errors`) as the contract's codes — the one place they are mapped —
 * and null for anything else (a bug: answered 500).
 *
 * @example
 * serviceErrorOf(new VersionConflictError(3, 4))?.code // 'version_conflict'
 */
export function serviceErrorOf(error: unknown): ServiceError | null {
  if (error instanceof ServiceError) return error
  if (error instanceof VersionConflictError) return new ServiceError('version_conflict', error.message)
  if (error instanceof SessionMissingError || error instanceof SessionEndedError)
    return new ServiceError('not_found', error.message)
  if (error instanceof SessionExistsError) return new ServiceError('session_exists', error.message)
  if (error instanceof SessionWipingError)
    return new ServiceError('unavailable', error.message, { 'Retry-After': WIPING_RETRY_SECONDS })
  if (error instanceof RewindPointError || error instanceof MissingBlobError)
    return new ServiceError('invalid_request', error.message)
  return null
}

/** What an RPC method answers: a value, or an error of the contract. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorWire }

/**
 * Runs a Durable Object method's body, answering a thrown {@link ServiceError} (or a failure of
 * storage's, see {@link serviceErrorOf}) as an error outcome; anything else is a bug and is thrown
 * on (the HTTP layer answers 500).
 *
 * @example
 * get(): Promise<Outcome<SessionJson>> { return toOutcome(() => this.session.json()) }
 */
export async function toOutcome<T>(body: () => T | Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await body() }
  } catch (error) {
    const known = serviceErrorOf(error)
    if (known) return { ok: false, error: known.wire }
    throw error
  }
}

/** The value of an outcome, or its error thrown again as a {@link ServiceError}. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw ServiceError.of(outcome.error)
  return outcome.value
}
