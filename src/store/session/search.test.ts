import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { newSessionId } from '../../../test/helpers'
import { atSeq, defaultEstimator, newMessageEvent } from '../../core'
import { Sql } from '../sql'
import { migrate } from './migrations'
import { SessionSearch } from './search'

const message = (seq: number) =>
  atSeq(
    newMessageEvent(
      { id: `m${seq}`, message: { role: 'user', content: `Message ${seq} rollout` }, timestamp: 't' },
      defaultEstimator,
    ),
    seq,
  )

describe('the search index', () => {
  it('an append is one segment of the index, however many events it holds (each segment is a lookup for every word of every search)', async () => {
    const object = env.SESSIONS.getByName(`search-tests/${newSessionId()}`)
    // Each call its own storage transaction: FTS5 writes its pending terms out when one commits.
    const inObject = <T>(work: (sql: Sql, search: SessionSearch) => T) =>
      runInDurableObject(object, (_instance, state) => {
        migrate(state.storage)
        const sql = new Sql(state.storage.sql)
        return work(sql, new SessionSearch(sql, (work) => state.storage.transactionSync(work)))
      })
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
