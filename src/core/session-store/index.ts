import type { MessageEvent, NewEvent, SessionEvent } from '../events'

/** Thrown by {@link SessionStore.append} when the log's version is not the expected one. */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError'
  constructor(
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`expected version ${expected}, but the session is at version ${actual}`)
  }
}

/** A view as of a version of the log (the version is the `seq` of the last event, 0 if none). */
export interface ViewSnapshot {
  view: MessageEvent[]
  version: number
}

/**
 * The storage port compaction works against. The session Durable Object implements it on its
 * SQLite log; the core's tests implement it on an array.
 */
export interface SessionStore {
  readView(): Promise<ViewSnapshot>
  /** Events appended after `version`, in log order. */
  readSince(version: number): Promise<SessionEvent[]>
  /**
   * Appends every event or none, in order, assigning `seq`s. Throws
   * {@link VersionConflictError} when the log is not at `expectedVersion`.
   */
  append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]>
}
