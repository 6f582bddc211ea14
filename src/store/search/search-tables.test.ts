import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { newSessionId } from '../../../test/helpers'
import { atSeq, defaultEstimator, newMessageEvent, textOf } from '../../core'
import { Sql } from '../../sql'
import { SessionBlobs } from '../log/blobs'
import { SessionLog } from '../log/log'
import { migrate } from '../log/migrations'
import { SearchTables } from './search-tables'

const message = (seq: number, content: string) =>
  atSeq(newMessageEvent({ id: `m${seq}`, message: { role: 'user', content }, timestamp: 't' }, defaultEstimator), seq)

const tablesIn = (sql: SqlStorage) =>
  sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('search', 'search_exact')`)
    .toArray()
    .map((row) => row.name)
    .sort()

describe('the search index made anew with stems (migration v17)', () => {
  it('keeps a session’s old index for its searches while the new one is filled step by step, newest first, then drops it', async () => {
    const stub = env.SESSIONS.getByName(`search-tables/${newSessionId()}`)
    await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql)
      const log = new SessionLog(sql)
      // A session written before v17: its events and its index of whole words.
      migrate(state.storage, 16)
      const events = Array.from({ length: 1200 }, (_, i) => message(i + 1, i === 0 ? 'He runs every morning' : `note ${i + 1}`))
      for (const event of events) log.insert(event)
      for (const event of events.toReversed())
        sql.run`INSERT INTO search (rowid, text) VALUES (${-event.seq}, ${textOf(event.message.content)})`
      migrate(state.storage)
      expect(tablesIn(state.storage.sql)).toEqual(['search', 'search_exact'])
      expect(sql.first`SELECT below FROM search_rebuild`).toEqual({ below: 1201 })

      const steps: (() => void)[] = []
      const indexed: number[] = []
      const tables = new SearchTables(
        sql,
        (work) => state.storage.transactionSync(work),
        (from, to) => log.range(from, to),
        () => null,
        (count) => indexed.push(count),
        (step) => steps.push(step),
      )
      const count = (table: string) => state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).one().n
      const matches = (table: string, word: string) =>
        state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${table} MATCH ?`, word).one().n
      // Searches read the old index (whole words: "running" finds nothing there); writes go to both.
      expect(tables.read().text).toBe('search_exact')
      expect(tables.written().map((table) => table.text)).toEqual(['search', 'search_exact'])
      expect(matches('search_exact', 'running')).toBe(0)
      // Nothing was indexed in the request: the filling waits for its steps.
      expect(count('search')).toBe(0)
      expect(steps).toHaveLength(1)
      steps.shift()!()
      // The newest 500 first.
      expect(count('search')).toBe(500)
      expect(sql.first`SELECT below FROM search_rebuild`).toEqual({ below: 701 })
      expect(state.storage.sql.exec<{ r: number }>('SELECT min(rowid) AS r FROM search').one().r).toBe(-1200)
      while (steps.length > 0) steps.shift()!()
      expect(indexed).toEqual([500, 500, 200])
      expect(count('search')).toBe(1200)
      expect(tablesIn(state.storage.sql)).toEqual(['search'])
      expect(sql.first`SELECT below FROM search_rebuild`).toBeNull()
      expect(tables.read().text).toBe('search')
      expect(tables.written().map((table) => table.text)).toEqual(['search'])
      // The new index finds a word by its stem, and is whole by FTS5's own check.
      expect(matches('search', 'running')).toBe(1)
      state.storage.sql.exec("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)")
    })
  })

  it('makes a new session’s index with stems at once, with nothing to fill', async () => {
    const stub = env.SESSIONS.getByName(`search-tables/${newSessionId()}`)
    await runInDurableObject(stub, (_instance, state) => {
      migrate(state.storage)
      expect(tablesIn(state.storage.sql)).toEqual(['search'])
      const sql = new Sql(state.storage.sql)
      const steps: (() => void)[] = []
      const tables = new SearchTables(
        sql,
        (work) => state.storage.transactionSync(work),
        () => [],
        () => null,
        () => {},
        (step) => steps.push(step),
      )
      expect(tables.written().map((table) => table.text)).toEqual(['search'])
      expect(steps).toEqual([])
    })
  })

  it('finds a stored text/plain document by its text in the new index, as an append does', async () => {
    const stub = env.SESSIONS.getByName(`search-tables/${newSessionId()}`)
    await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql)
      const log = new SessionLog(sql)
      const blobs = new SessionBlobs(sql)
      migrate(state.storage, 16)
      const data = new TextEncoder().encode('Minutes: the walrus budget was approved.')
      const ref = `sha256:${'ab'.repeat(32)}`
      blobs.write([{ ref, mediaType: 'text/plain', bytes: data.byteLength, data }])
      const part = { type: 'document' as const, mediaType: 'text/plain', blob: ref, bytes: data.byteLength }
      log.insert(
        atSeq(newMessageEvent({ id: 'm1', message: { role: 'user', content: [part] }, timestamp: 't' }, defaultEstimator), 1),
      )
      migrate(state.storage)
      const steps: (() => void)[] = []
      const tables = new SearchTables(
        sql,
        (work) => state.storage.transactionSync(work),
        (from, to) => log.range(from, to),
        blobs.storedText,
        () => {},
        (step) => steps.push(step),
      )
      expect(tables.read().text).toBe('search_exact')
      while (steps.length > 0) steps.shift()!()
      expect(tables.read().text).toBe('search')
      const found = state.storage.sql.exec<{ rowid: number }>("SELECT rowid FROM search WHERE search MATCH 'walrus'").toArray()
      expect(found).toEqual([{ rowid: -1 }])
    })
  })

  it('stops filling when the storage is wiped (a step scheduled before does nothing)', async () => {
    const stub = env.SESSIONS.getByName(`search-tables/${newSessionId()}`)
    await runInDurableObject(stub, (_instance, state) => {
      const sql = new Sql(state.storage.sql)
      const log = new SessionLog(sql)
      migrate(state.storage, 16)
      log.insert(message(1, 'hello there'))
      migrate(state.storage)
      const steps: (() => void)[] = []
      const tables = new SearchTables(
        sql,
        (work) => state.storage.transactionSync(work),
        (from, to) => log.range(from, to),
        () => null,
        () => {},
        (step) => steps.push(step),
      )
      expect(tables.read().text).toBe('search_exact')
      tables.reset()
      steps.shift()!()
      expect(sql.first`SELECT below FROM search_rebuild`).toEqual({ below: 2 })
    })
  })
})
