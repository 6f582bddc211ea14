import type { SessionEvent } from '../../core'
import { IDS_PER_STATEMENT, inChunks, type Sql } from '../../sql'

/**
 * Every tool call id and tool response id the log holds (the `tool_ids` table), covered or not:
 * what a model's call id must not repeat. One row per id, written with the events that bring it.
 */
export class ToolIds {
  constructor(private readonly sql: Sql) {}

  /** Records the ids of events being written (call it inside the write's transaction). */
  add(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.type !== 'MESSAGE') continue
      const { toolCalls = [], toolResponses = [] } = event.message
      for (const { id } of [...toolCalls, ...toolResponses])
        this.sql.run`INSERT OR IGNORE INTO tool_ids (id, seq) VALUES (${id}, ${event.seq})`
    }
  }

  /** The seq of the event that first held a tool call id (its call's), or null (unknown, or written before it was kept). */
  seqOf(id: string): number | null {
    return this.sql.first<{ seq: number | null }>`SELECT seq FROM tool_ids WHERE id = ${id}`?.seq ?? null
  }

  /** Which of these ids the log already holds. */
  used(ids: readonly string[]): Set<string> {
    const found = new Set<string>()
    for (const chunk of inChunks(ids, IDS_PER_STATEMENT)) {
      for (const row of this.sql.all<{ id: string }>`SELECT id FROM tool_ids
          WHERE id IN (SELECT value FROM json_each(${JSON.stringify(chunk)}))`)
        found.add(row.id)
    }
    return found
  }
}
