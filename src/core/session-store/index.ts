import type { CompactionEvent, MessageEvent, NewEvent, SessionEvent, ViewEvent } from '../events'

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
export interface ViewSnapshot<E extends ViewEvent = MessageEvent> {
  view: E[]
  version: number
}

/**
 * The storage port compaction works against. The session Durable Object implements it on its
 * SQLite log, with a view of skeletons (`E`) so that a pass holds no bodies; the core's tests
 * implement it on an array of whole events.
 */
export interface SessionStore<E extends ViewEvent = MessageEvent> {
  /** The view as compaction decides on it: skeletons are enough. */
  readView(): Promise<ViewSnapshot<E>>
  /** Events appended after `version`, in log order: messages as view events, boundaries whole. */
  readSince(version: number): Promise<(E | CompactionEvent)[]>
  /** The whole events of some view events, in their order: what a summarizer reads. */
  readEvents(events: readonly E[]): Promise<MessageEvent[]>
  /**
   * Appends every event or none, in order, assigning `seq`s. Throws
   * {@link VersionConflictError} when the log is not at `expectedVersion`.
   */
  append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]>
}
