/** A value SQLite binds. */
export type SqlValue = string | number | null | ArrayBuffer

/** A trusted piece of SQL placed into a statement as written: a column list, never user input. */
export class SqlFragment {
  constructor(readonly text: string) {}
}

/** Marks a constant piece of SQL (a column list) to be placed into a statement as written. */
export const fragment = (text: string) => new SqlFragment(text)

/**
 * `LIMIT n` written into the statement, not bound: workerd's SQLite runs an FTS5 query with a
 * literal limit ~0.05 ms faster than the same query with a bound one (a rare phrase's search
 * 0.123 → 0.072 ms inside the object; BENCHMARKS, issue 31). Each limit is a statement of its own
 * in the object's statement cache: only for limits that take a few values.
 */
export function literalLimit(n: number): SqlFragment {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`a limit is a whole number of rows, not ${n}`)
  return fragment(`LIMIT ${n}`)
}

/**
 * A whole number written into the statement, not bound: an FTS5 query with a bound rowid range
 * steps through the whole doclist and drops what is outside it (every match read and billed);
 * with the bounds written as numbers, FTS5 seeks to the range and stops at its end.
 */
export function literalInt(n: number): SqlFragment {
  if (!Number.isSafeInteger(n)) throw new RangeError(`a literal is a whole number, not ${n}`)
  return fragment(String(n))
}

/** The most values one statement may bind (the Durable Object SQL API refuses more). */
export const MAX_BOUND = 100

/**
 * Ids looked up in one statement, bound as one JSON array (`IN (SELECT value FROM json_each(?))`):
 * an id is at most 256 characters, so a chunk stays well under a value's 2 MB.
 */
export const IDS_PER_STATEMENT = 8192

type Value = SqlValue | readonly SqlValue[] | SqlFragment

/**
 * SQL as tagged templates over a Durable Object's `ctx.storage.sql`: every value sits where it is
 * bound; an array binds as a list (`IN (${ids})`); a {@link SqlFragment} is placed as written.
 *
 * @example
 * const sql = new Sql(ctx.storage.sql)
 * const rows = sql.all<{ seq: number }>`SELECT seq FROM events WHERE id IN (${ids}) ORDER BY seq`
 * sql.run`DELETE FROM turns WHERE id = ${id}`
 */
export class Sql {
  constructor(readonly storage: SqlStorage) {}

  /** Every row of a query. */
  all<T extends Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: Value[]): T[] {
    return this.exec<T>(strings, values).toArray()
  }

  /**
   * The rows of a query as the caller takes them: SQLite steps (and bills) only the rows taken,
   * and one row is held at a time. The statement may stay open while others run and across
   * awaits (a streamed answer).
   */
  *each<T extends Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: Value[]): Generator<T> {
    yield* this.exec<T>(strings, values)
  }

  /** The first row of a query, or null. */
  first<T extends Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: Value[]): T | null {
    return this.all<T>(strings, ...values)[0] ?? null
  }

  /** Runs a statement that returns no rows (an insert, update or delete: it runs at once). */
  run(strings: TemplateStringsArray, ...values: Value[]): void {
    this.exec(strings, values)
  }

  private exec<T extends Record<string, SqlValue>>(strings: TemplateStringsArray, values: Value[]): SqlStorageCursor<T> {
    let query = strings[0]!
    const bound: SqlValue[] = []
    values.forEach((value, i) => {
      if (value instanceof SqlFragment) query += value.text
      else if (Array.isArray(value)) {
        if (value.length === 0) throw new RangeError('an empty list cannot be bound')
        query += value.map(() => '?').join(', ')
        bound.push(...value)
      } else {
        query += '?'
        bound.push(value as SqlValue)
      }
      query += strings[i + 1]!
    })
    if (bound.length > MAX_BOUND) throw new RangeError(`a statement binds at most ${MAX_BOUND} values, not ${bound.length}`)
    return this.storage.exec<T>(query, ...bound)
  }
}

/**
 * A list cut into pieces a statement can bind.
 *
 * @example
 * for (const ids of inChunks(allIds)) sql.all`SELECT * FROM events WHERE id IN (${ids})`
 */
export function* inChunks<T>(list: readonly T[], size = MAX_BOUND): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size)
}
