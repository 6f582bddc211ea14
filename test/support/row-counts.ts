/** What statements read and wrote, in SQLite rows: what the platform bills a Durable Object for. */
export interface RowCounts {
  rowsRead: number
  rowsWritten: number
}

/**
 * Counts the rows every statement of a Durable Object's storage reads and writes, where the
 * platform bills them: each cursor `ctx.storage.sql.exec` answers. Install it once on the
 * object's storage (its `sql` is one object for the object's life); `take()` answers the rows of
 * the statements since the last take.
 *
 * @example
 * const rows = countRows(ctx.storage)
 * await work()
 * rows.take() // { rowsRead: 3, rowsWritten: 7 }
 */
export function countRows(storage: DurableObjectStorage): { take(): RowCounts; uncounted: typeof storage.sql.exec } {
  const sql = storage.sql
  const exec = sql.exec.bind(sql)
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = []
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    const cursor = exec(query, ...bindings)
    cursors.push(cursor)
    return cursor
  }) as typeof sql.exec
  return {
    /** A statement the test runs to look, not counted. */
    uncounted: exec,
    take(): RowCounts {
      // A cursor counts the rows stepped so far: a write's at once, a query's as far as it was read.
      const taken = cursors.splice(0)
      return { rowsRead: taken.reduce((n, c) => n + c.rowsRead, 0), rowsWritten: taken.reduce((n, c) => n + c.rowsWritten, 0) }
    },
  }
}
