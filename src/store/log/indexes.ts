import type { DocumentText, SessionEvent } from '../../core'
import type { Sql } from '../../sql'
import { ToolIds } from './tool-ids'

/** An index kept beside the log (the full-text search index, `store/search`): told of each write's events in its transaction. */
export interface EventIndex {
  /** `documentText`: a text/plain document's text, by its blob's name. */
  index(events: readonly SessionEvent[], documentText: DocumentText): void
  /** Forgets what it knew of the storage (wiped, or a write rolled back). */
  reset(): void
}

/** What is kept beside the log to look events up by: tool-call ids and full-text search. */
export class LogIndexes {
  readonly toolIds: ToolIds

  constructor(
    sql: Sql,
    private readonly search: EventIndex,
  ) {
    this.toolIds = new ToolIds(sql)
  }

  /** Indexes events being written (call it inside the write's transaction: nothing is indexed half). */
  index(events: readonly SessionEvent[], documentText: DocumentText): void {
    this.toolIds.add(events)
    this.search.index(events, documentText)
  }

  /** Forgets what the indexes knew of the storage: it was wiped, or a write rolled back. */
  reset(): void {
    this.search.reset()
  }
}
