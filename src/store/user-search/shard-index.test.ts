import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { newSessionId } from '../../../test/helpers'
import { Sql } from '../../sql'
import { SEARCH_PAGE_BYTES } from '../search/index-merges'
import { ShardIndex } from './shard-index'
import { shardRanking } from './shard-ranking'
import type { ShardBatch } from './shard-types'

const at = '2026-01-01T00:00:00.000Z'
const batch = (sessionId: string, createdAt: string, texts: string[], from = 1): ShardBatch => ({
  sessionId,
  createdAt,
  events: texts.map((text, i) => ({ seq: from + i, role: i % 2 ? 'assistant' : 'user', at, text })),
})

/** Runs `work` on a fresh search shard's storage. */
const inShard = <T>(work: (index: ShardIndex, sql: Sql, state: DurableObjectState) => T) =>
  runInDurableObject(env.SEARCH_SHARDS.getByName(`shard-tests/${newSessionId()}`), (_instance, state) => {
    const sql = new Sql(state.storage.sql)
    return work(new ShardIndex(sql, (w) => state.storage.transactionSync(w)), sql, state)
  })

const hits = (sql: Sql, index: ShardIndex, q: string) =>
  shardRanking(sql, index, { q, mode: 'auto', want: 50 }).candidates.map((c) => `${c.sessionId}:${c.seq}`)

describe('a search shard', () => {
  it('creates nothing until it is given events, and indexes each event once', async () => {
    await inShard((index, sql, state) => {
      expect(hits(sql, index, 'anything')).toEqual([])
      expect(state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE name = 'words'").one().n).toBe(0)
      expect(index.add(batch('a', at, ['the login bug', 'fixed it']))).toBe(2)
      // Sent again after a crash: nothing new.
      expect(index.add(batch('a', at, ['the login bug', 'fixed it']))).toBe(0)
      expect(hits(sql, index, 'login')).toEqual(['a:1'])
      expect(sql.first`SELECT documents, tokens FROM counts`).toEqual({ documents: 2, tokens: 5 })
    })
  })

  it('hides a session at once when told it is gone, purges its events a step at a time, and takes nothing more of it', async () => {
    await inShard((index, sql) => {
      index.add(
        batch(
          'a',
          at,
          Array.from({ length: 1200 }, (_, i) => `note ${i} about lanterns`),
        ),
      )
      index.add(batch('b', at, ['lanterns too']))
      expect(index.forget('a', at)).toBe(true)
      expect(hits(sql, index, 'lanterns')).toEqual(['b:1'])
      let steps = 0
      while (index.purge()) steps++
      expect(steps).toBe(2)
      expect(sql.first`SELECT documents FROM counts`).toEqual({ documents: 1 })
      expect(sql.first<{ n: number }>`SELECT count(*) AS n FROM docs`!.n).toBe(1)
      // A hand-over of it that comes late adds nothing.
      expect(index.add(batch('a', at, ['late lanterns'], 1201))).toBe(0)
      // A new incarnation of the same id is another session.
      const later = '2026-02-01T00:00:00.000Z'
      expect(index.add(batch('a', later, ['new lanterns']))).toBe(1)
      expect(hits(sql, index, 'lanterns').sort()).toEqual(['a:1', 'b:1'])
    })
  })

  it('hides every session created before an erasure, and any handed over late', async () => {
    await inShard((index, sql) => {
      index.add(batch('old', '2026-01-01T00:00:00.000Z', ['kept word']))
      index.add(batch('new', '2026-03-01T00:00:00.000Z', ['kept word']))
      expect(index.eraseBefore('2026-02-01T00:00:00.000Z')).toBe(true)
      expect(hits(sql, index, 'kept')).toEqual(['new:1'])
      expect(index.add(batch('late', '2026-01-15T00:00:00.000Z', ['kept word']))).toBe(0)
      while (index.purge()) {}
      expect(hits(sql, index, 'kept')).toEqual(['new:1'])
    })
  })

  it('filters by sessions, role and time, and answers its best candidates with their neighbours', async () => {
    await inShard((index, sql) => {
      index.add(batch('a', at, ['question about deploys', 'the deploy is friday', 'ok', 'deploy notes']))
      index.add(batch('b', at, ['deploy again']))
      const run = (query: object) =>
        shardRanking(sql, index, { q: 'deploy', mode: 'auto', want: 50, ...query }).candidates.map(
          (c) => `${c.sessionId}:${c.seq}`,
        )
      expect(run({ sessions: ['b'] })).toEqual(['b:1'])
      expect(run({ role: 'assistant' }).sort()).toEqual(['a:2', 'a:4'])
      expect(run({ since: '2027-01-01T00:00:00.000Z' })).toEqual([])
      const part = shardRanking(sql, index, { q: 'deploy', mode: 'auto', want: 1 })
      expect(part.more).toBe(true)
      // The best, and those next to it among the candidates (their scores add to its own).
      expect(part.candidates.length).toBeGreaterThanOrEqual(1)
      expect(part.candidates.length).toBeLessThanOrEqual(3)
    })
  })

  it('writes its index in 500-byte pages, and a shard made with larger ones takes them on its next write', async () => {
    // FTS5's records: a segment's pages from its id shifted 37 bits.
    const largestPage = (sql: Sql) =>
      sql.first<{ largest: number }>`SELECT max(length(block)) AS largest FROM words_data WHERE id >> 37 > 0`!.largest
    const notes = (from: number) => Array.from({ length: 1000 }, (_, i) => `note ${from + i} on the rollout plan`)
    await inShard((index, sql, state) => {
      index.add(batch('a', at, notes(0)))
      expect(largestPage(sql)).toBeLessThanOrEqual(SEARCH_PAGE_BYTES + 8)
      // As a shard made before the page size was set: FTS5's default, 4,050 bytes (its setting cannot be deleted here).
      state.storage.sql.exec("INSERT INTO words (words, rank) VALUES ('pgsz', 4050)")
      index.add(batch('b', at, notes(1000)))
      expect(largestPage(sql)).toBeGreaterThan(2 * SEARCH_PAGE_BYTES)
      const older = new ShardIndex(sql, (w) => state.storage.transactionSync(w))
      older.add(batch('c', at, notes(2000)))
      const newest = sql.first<{ largest: number }>`SELECT max(length(block)) AS largest FROM words_data
        WHERE id >> 37 = (SELECT max(id >> 37) FROM words_data)`!.largest
      expect(newest).toBeLessThanOrEqual(SEARCH_PAGE_BYTES + 8)
      expect(hits(sql, older, '2999')).toEqual(['c:1000'])
      expect(hits(sql, older, '999')).toEqual(['a:1000'])
    })
  })
})
