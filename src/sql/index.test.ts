import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { newSessionId } from '../../test/helpers'
import { countRows, type RowCounts } from '../../test/support/row-counts'
import { fragment, inChunks, literalLimit, MAX_BOUND, Sql } from '.'

/** Runs `fn` on a fresh Durable Object's real SQLite storage (a session object's, never otherwise used), its rows counted. */
const withStorage = (fn: (sql: Sql, rows: { take(): RowCounts }) => void) =>
  runInDurableObject(env.SESSIONS.getByName(`sql-tests/${newSessionId()}`), async (_instance, state) => {
    const rows = countRows(state.storage)
    const sql = new Sql(state.storage.sql)
    sql.run`CREATE TABLE t (n INTEGER PRIMARY KEY, id TEXT NOT NULL, note TEXT)`
    rows.take()
    fn(sql, rows)
  })

describe('Sql', () => {
  it('binds each value where it stands, a list as a list, a fragment as written', async () => {
    await withStorage((sql) => {
      for (const [id, n] of [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ] as const)
        sql.run`INSERT INTO t (id, n, note) VALUES (${id}, ${n}, ${null})`
      // A value that looks like SQL stays a value.
      sql.run`INSERT INTO t (id, n, note) VALUES (${"d'); DROP TABLE t; --"}, ${4}, ${'x'})`
      expect(sql.all`SELECT id FROM t WHERE id IN (${['a', 'c']}) ORDER BY id`).toEqual([{ id: 'a' }, { id: 'c' }])
      expect(sql.first<{ total: number }>`SELECT ${fragment('sum(n)')} AS total FROM t`).toEqual({ total: 10 })
      expect(sql.first`SELECT id FROM t WHERE id = ${'zz'}`).toBeNull()
    })
  })

  it('run writes at once; all reads every row its query steps through', async () => {
    await withStorage((sql, rows) => {
      sql.run`INSERT INTO t (id, n) VALUES (${'a'}, ${1}), (${'b'}, ${2}), (${'c'}, ${3})`
      expect(rows.take().rowsWritten).toBe(3)
      sql.all`SELECT * FROM t WHERE n = ${2}`
      expect(rows.take().rowsRead).toBe(1) // one row, found by its primary key
      sql.all`SELECT * FROM t WHERE note IS NULL`
      expect(rows.take().rowsRead).toBe(3) // no index on note: every row is read
    })
  })

  it('each: reads the rows taken, and stays open while other statements run', async () => {
    await withStorage((sql, rows) => {
      for (let n = 1; n <= 50; n++) sql.run`INSERT INTO t (id, n) VALUES (${`id${n}`}, ${n})`
      rows.take()
      const taken: number[] = []
      for (const row of sql.each<{ n: number }>`SELECT n FROM t WHERE n BETWEEN ${1} AND ${50} ORDER BY n LIMIT ${50}`) {
        taken.push(row.n)
        // A statement between two rows, and a write to the same table, leave the walk where it was.
        sql.run`UPDATE t SET note = ${'seen'} WHERE n = ${row.n}`
        if (taken.length === 5) break
      }
      expect(taken).toEqual([1, 2, 3, 4, 5])
      const updates = 5 // each finds its row by the primary key
      expect(rows.take().rowsRead - updates).toBeLessThanOrEqual(6) // the rows taken, and at most one stepped onto
      expect(sql.first<{ seen: number }>`SELECT count(*) AS seen FROM t WHERE note = 'seen'`).toEqual({ seen: 5 })
    })
  })

  it('writes a literal limit into the statement, and refuses one that is not a whole number of rows', async () => {
    await withStorage((sql) => {
      for (const n of [1, 2, 3]) sql.run`INSERT INTO t (id, n) VALUES (${`id${n}`}, ${n})`
      expect(sql.all`SELECT n FROM t ORDER BY n ${literalLimit(2)}`).toEqual([{ n: 1 }, { n: 2 }])
      expect(sql.all`SELECT n FROM t ORDER BY n ${literalLimit(0)}`).toEqual([])
      for (const bad of [1.5, -1, Number.NaN, 2 ** 53]) expect(() => literalLimit(bad)).toThrow('a whole number of rows')
    })
  })

  it('refuses an empty list and more values than a statement may bind', async () => {
    await withStorage((sql) => {
      expect(() => sql.all`SELECT * FROM t WHERE id IN (${[]})`).toThrow('an empty list cannot be bound')
      const many = Array.from({ length: MAX_BOUND + 1 }, (_, i) => `id${i}`)
      expect(() => sql.all`SELECT * FROM t WHERE id IN (${many})`).toThrow(`at most ${MAX_BOUND} values`)
      const found = [...inChunks(many)].flatMap((ids) => sql.all`SELECT * FROM t WHERE id IN (${ids})`)
      expect(found).toEqual([])
    })
  })
})

describe('inChunks', () => {
  it('cuts a list into pieces of at most the bound', () => {
    expect([...inChunks([1, 2, 3, 4, 5], 2)]).toEqual([[1, 2], [3, 4], [5]])
    expect([...inChunks([], 2)]).toEqual([])
  })
})
