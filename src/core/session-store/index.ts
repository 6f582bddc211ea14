import type { ClearedEntry, MessageEvent, NewEvent, SessionEvent } from '../events'
import type { ViewPins } from '../pins'
import type { ViewColumns } from '../view/columns'

export * from './errors'

/** A view as of a version of the log (the version is the `seq` of the last event, 0 if none). */
export interface ViewSnapshot {
  view: ViewColumns
  version: number
  /** Which of its events are pinned now, and which the newest boundary held because of a pin (none when absent). */
  pins?: ViewPins
  /** Its messages a clearing cleared (the newest boundary's list; none when absent): `view` counts them cleared. */
  cleared?: readonly ClearedEntry[]
  /** The seqs of those messages, when the store knows them (a clearing then reads only the others). */
  clearedSeqs?: ReadonlySet<number>
}

/**
 * The storage port compaction works against. A pass decides on the view's columns alone and
 * names events by `seq`; it reads whole events only for its summarizer. The session Durable
 * Object implements it on its SQLite log; the core's tests on an array of whole events.
 */
export interface SessionStore {
  readView(): Promise<ViewSnapshot>
  /** Events appended after `version`, in log order (a pass that waited for its summarizer reads these few). */
  readSince(version: number): Promise<SessionEvent[]>
  /** The whole events of these seqs, in order, as stored (never cleared): what a summarizer reads, cleared by the caller. */
  readEvents(seqs: Int32Array): Promise<MessageEvent[]>
  /** The ids of the events of these seqs, in order: what a boundary names. */
  readIds(seqs: Int32Array): Promise<string[]>
  /**
   * Appends every event or none, in order, assigning `seq`s. Throws
   * {@link VersionConflictError} when the log is not at `expectedVersion`.
   */
  append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]>
}
