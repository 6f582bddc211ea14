import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { newSessionId } from '../../../test/helpers'
import { atSeq, defaultEstimator, newMessageEvent } from '../../core'
import { Sql } from '../../sql'
import { migrate } from '../log/migrations'
import { SEARCH_PAGE_BYTES } from './index-merges'
import { SessionSearch } from './search'

const message = (seq: number) =>
  atSeq(
    newMessageEvent(
      { id: `m${seq}`, message: { role: 'user', content: `Message ${seq} rollout` }, timestamp: 't' },
      defaultEstimator,
    ),
    seq,
  )

/** Runs `work` on a fresh session object's storage and index, migrated; each call its own storage transaction. */
const inObjectOf =
  (object: DurableObjectStub) =>
  <T>(work: (sql: Sql, search: SessionSearch) => T) =>
    runInDurableObject(object, (_instance, state) => {
      migrate(state.storage)
      const sql = new Sql(state.storage.sql)
      return work(
        sql,
        new SessionSearch(
          sql,
          (work) => state.storage.transactionSync(work),
          () => [],
        ),
      )
    })

describe('the search index', () => {
  it('a segment of a thousand events is written in 500-byte pages, with a doclist index for each of the words every event holds', async () => {
    const inObject = inObjectOf(env.SESSIONS.getByName(`search-tests/${newSessionId()}`))
    await inObject((_sql, search) => search.index(Array.from({ length: 1000 }, (_, i) => message(i + 1))))
    // FTS5's records: a segment's pages from its id shifted 37 bits, its doclist indexes flagged by bit 36 (FTS5_DLIDX_ROWID).
    const { pages, largest, indexes } = await inObject(
      (sql) =>
        sql.first<{ pages: number; largest: number; indexes: number }>`SELECT count(*) AS pages,
          max(length(block)) AS largest, sum((id >> 36) & 1) AS indexes FROM search_data WHERE id >> 37 > 0`!,
    )
    expect(largest).toBeLessThanOrEqual(SEARCH_PAGE_BYTES + 8)
    expect(pages).toBeGreaterThan(10)
    // "message" and "rollout" are in every event (4050-byte pages: none below ~5,000 events). By
    // its doclist index FTS5 seeks through such a word's pages, where a phrase holding it matches
    // an older event, instead of stepping through each of them.
    expect(indexes).toBe(2)
  })

  it('a level of the index is merged once it holds two segments (each a lookup for every word of every search)', async () => {
    const inObject = inObjectOf(env.SESSIONS.getByName(`search-tests/${newSessionId()}`))
    const segments = () =>
      inObject((sql) => sql.first<{ n: number }>`SELECT count(DISTINCT id >> 37) AS n FROM search_data WHERE id >> 37 > 0`!.n)
    for (const from of [1, 51])
      await inObject((_sql, search) => search.index(Array.from({ length: 50 }, (_, i) => message(from + i))))
    expect(await segments()).toBe(2)
    // The index's own merge (a little after the appends, on a timer: here run at once). With
    // FTS5's default of 4 segments a level, it would find nothing to merge.
    await inObject((_sql, search) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      try {
        search.keepMerged()
        vi.runAllTimers()
      } finally {
        vi.useRealTimers()
      }
    })
    expect(await segments()).toBe(1)
    expect(await inObject((sql) => sql.all`SELECT -rowid AS seq FROM search WHERE search MATCH '"message 51"'`)).toEqual([
      { seq: 51 },
    ])
  })

  it('an append is one segment of the index, however many events it holds (each segment is a lookup for every word of every search)', async () => {
    // Each call its own storage transaction: FTS5 writes its pending terms out when one commits.
    const inObject = inObjectOf(env.SESSIONS.getByName(`search-tests/${newSessionId()}`))
    // FTS5's pages: a segment's are numbered from its id shifted 37 bits (FTS5_SEGMENT_ROWID); below are its own records.
    const segments = () =>
      inObject((sql) => sql.first<{ n: number }>`SELECT count(DISTINCT id >> 37) AS n FROM search_data WHERE id >> 37 > 0`!.n)
    const append = (from: number, count: number) =>
      inObject((_sql, search) => search.index(Array.from({ length: count }, (_, i) => message(from + i))))
    await append(1, 50)
    expect(await segments()).toBe(1)
    await append(51, 2)
    expect(await segments()).toBe(2)
    // What a search finds is the same.
    const found = await inObject(
      (sql) => sql.all<{ seq: number }>`SELECT -rowid AS seq FROM search WHERE search MATCH '"message 51"'`,
    )
    expect(found).toEqual([{ seq: 51 }])
  })
})
