/**
 * How storage fails, by name: what a use case may catch, and what the contract maps to its error
 * codes in one place (`contract/errors`, `serviceErrorOf`). Storage throws these, never an API error.
 */

/** The log's version is not the one a write expected (another write came first). */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError'
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`expected version ${expected}, but the session is at version ${actual}`)
  }
}

/** There is no such session (never created, deleted, or expired). */
export class SessionMissingError extends Error {
  override readonly name = 'SessionMissingError'
  constructor() {
    super('session not found')
  }
}

/** The session a request began on ended (expired, or deleted) while the request ran: nothing more is written to it. */
export class SessionEndedError extends Error {
  override readonly name = 'SessionEndedError'
  constructor() {
    super('session not found: it expired or was deleted while this request ran; nothing more was written')
  }
}

/** A session with this id exists already. */
export class SessionExistsError extends Error {
  override readonly name = 'SessionExistsError'
  constructor(readonly sessionId: string) {
    super(`session "${sessionId}" already exists`)
  }
}

/** The session's previous incarnation is still being wiped (its user's index was out of reach): a new one waits. */
export class SessionWipingError extends Error {
  override readonly name = 'SessionWipingError'
  constructor() {
    super('the session’s previous incarnation is still being deleted; retry shortly')
  }
}

/** A point of the log a rewind or a fork names is no message of the conversation; the message names the field and why. */
export class RewindPointError extends Error {
  override readonly name = 'RewindPointError'
}

/** An event names a blob (an image's, a document's) that the write does not bring and the session does not hold. */
export class MissingBlobError extends Error {
  override readonly name = 'MissingBlobError'
  constructor(readonly ref: string) {
    super(`a part names blob "${ref}", which this session does not hold`)
  }
}
