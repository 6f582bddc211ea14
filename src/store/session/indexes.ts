import type { SessionEvent } from '../../core'
import type { Sql } from '../sql'
import { SessionSearch } from './search'
import { ToolIds } from './tool-ids'

/** What is kept beside the log to look events up by: tool-call ids and full-text search. */
export class LogIndexes {
  readonly toolIds: ToolIds
  readonly search: SessionSearch

  /** `transaction` runs work in one storage transaction (the search index's merges, off the append). */
  constructor(sql: Sql, transaction: <T>(work: () => T) => T) {
    this.toolIds = new ToolIds(sql)
    this.search = new SessionSearch(sql, transaction)
  }

  /** Indexes events being written (call it inside the write's transaction: nothing is indexed half). */
  index(events: readonly SessionEvent[]): void {
    this.toolIds.add(events)
    this.search.index(events)
  }
}
