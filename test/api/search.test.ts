import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sessionStub } from '../../src/object/address'
import { append, assistant, call, expectError, newSessionId, until, user } from '../helpers'

const search = (id: string, params: Record<string, string>, as = 'alice') =>
  call('GET', `/v1/sessions/${id}/search?${new URLSearchParams(params)}`, { user: as })
const hitIds = (result: { body: { hits: { event: { id: string } }[] } }) => result.body.hits.map((h) => h.event.id)

async function seeded() {
  const id = newSessionId()
  await append(id, [
    user('What is the rollout plan for Zürich?', 'u1'),
    assistant('We ship to Zurich on Monday; the café team follows.', 'a1'),
    {
      id: 'c1',
      message: {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'k1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
    },
    {
      id: 't1',
      message: {
        role: 'tool',
        content: null,
        toolResponses: [{ id: 'k1', name: 'get_weather', data: 'Paris: 18 degrees, sunny' }],
      },
    },
    user('And the budget? It was 4200 euros.', 'u2'),
    assistant('The budget stays at 4200.', 'a2'),
  ])
  return id
}

describe('GET /v1/sessions/:id/search', () => {
  it('finds whole words, case- and accent-insensitively, in content, tool calls and tool results', async () => {
    const id = await seeded()
    expect(hitIds(await search(id, { q: 'zurich' })).sort()).toEqual(['a1', 'u1'])
    expect(hitIds(await search(id, { q: 'CAFE' }))).toEqual(['a1'])
    expect(hitIds(await search(id, { q: 'weather paris' })).sort()).toEqual(['c1', 't1'])
    expect(hitIds(await search(id, { q: 'get_weather' })).sort()).toEqual(['c1', 't1'])
    expect(hitIds(await search(id, { q: 'zur' }))).toEqual([]) // whole words only
    expect(hitIds(await search(id, { q: 'zur*' })).sort()).toEqual(['a1', 'u1'])
    expect(hitIds(await search(id, { q: '"budget stays"' }))).toEqual(['a2'])
    expect(hitIds(await search(id, { q: '"stays budget"' }))).toEqual([])
    const hit = (await search(id, { q: 'sunny' })).body.hits[0]
    expect(hit).toMatchObject({ covered: false, event: { id: 't1', type: 'MESSAGE' } })
    expect(hit.snippet).toContain('sunny')
  })

  it('reaches what compaction hid: covered events, scope and role filters', async () => {
    const id = await seeded()
    // Searched once before the pass: what a search knows of the view is made again after it.
    expect((await search(id, { q: 'zurich' })).body.hits.map((h: { covered: boolean }) => h.covered)).toEqual([false, false])
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
    const all = await search(id, { q: 'budget zurich', mode: 'all' })
    expect(all.body.hits).toEqual([])
    const zurich = await search(id, { q: 'zurich' })
    expect(zurich.body.hits.every((h: { covered: boolean }) => h.covered)).toBe(true)
    expect(hitIds(await search(id, { q: 'budget', scope: 'view' })).sort()).toEqual(['a2', 'u2'])
    expect(hitIds(await search(id, { q: 'budget', scope: 'covered' }))).toEqual([])
    expect(hitIds(await search(id, { q: 'zurich', scope: 'covered', role: 'user' }))).toEqual(['u1'])
    // New events are searchable from the moment they are written.
    await append(id, [user('One more thing about Zurich', 'u3')])
    expect(hitIds(await search(id, { q: 'zurich', scope: 'view' }))).toEqual(['u3'])
  })

  it('with mode all, ranks best first, ties newest first, and pages with the cursor', async () => {
    const id = newSessionId()
    await append(
      id,
      Array.from({ length: 7 }, (_, i) => user(`deploy note ${i}`, `n${i}`)),
    )
    const page1 = await search(id, { q: 'deploy', mode: 'all', limit: '3' })
    expect(hitIds(page1)).toEqual(['n6', 'n5', 'n4'])
    const page2 = await search(id, { q: 'deploy', mode: 'all', limit: '3', cursor: page1.body.nextCursor })
    const page3 = await search(id, { q: 'deploy', mode: 'all', limit: '3', cursor: page2.body.nextCursor })
    expect([...hitIds(page2), ...hitIds(page3)]).toEqual(['n3', 'n2', 'n1', 'n0'])
    expect(page3.body.nextCursor).toBeNull()
    expect(hitIds(await search(id, { q: 'deploy', limit: '1000' }))).toHaveLength(7)
  })

  it('pages every match once whether the matches fill a page, a page and one, or a page and two (with a role filter too)', async () => {
    for (const count of [3, 4, 5]) {
      const id = newSessionId()
      await append(id, [
        ...Array.from({ length: count }, (_, i) => user(`ticket ${i} needs triage`, `t${i}`)),
        ...Array.from({ length: 2 }, (_, i) => assistant(`triage answered ${i}`, `r${i}`)),
      ])
      for (const filter of [{}, { role: 'user' }] as Record<string, string>[]) {
        const seen: string[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const params: Record<string, string> = {
            q: 'triage',
            mode: 'all',
            limit: '3',
            ...filter,
            ...(cursor ? { cursor } : {}),
          }
          const page = await search(id, params)
          expect(page.status).toBe(200)
          for (const hit of page.body.hits) expect(hit.snippet).toContain('triage')
          seen.push(...hitIds(page))
          cursor = page.body.nextCursor
          pages++
        } while (cursor)
        const expected = [...Array.from({ length: count }, (_, i) => `t${i}`), ...('role' in filter ? [] : ['r0', 'r1'])]
        expect(seen.sort(), `${count} matches ${JSON.stringify(filter)}`).toEqual(expected.sort())
        expect(pages).toBe(Math.ceil(expected.length / 3))
      }
    }
  })

  it('with mode all, ranks a word in thousands of events a window at a time: best first among the newest 1000, every match paged once', async () => {
    const id = newSessionId()
    // 2,500 matches: a strong one in the oldest window (seq 1), a strong one in the newest, the rest weak.
    const weak = (i: number) => user(`memo ${i}: a long note about many things besides the word release itself`, `m${i}`)
    const strong = (name: string) => user('release release release', name)
    await append(id, [strong('old-best'), ...Array.from({ length: 999 }, (_, i) => weak(i))])
    await append(
      id,
      Array.from({ length: 1000 }, (_, i) => weak(999 + i)),
    )
    await append(id, [
      ...Array.from({ length: 250 }, (_, i) => weak(1999 + i)),
      strong('new-best'),
      ...Array.from({ length: 249 }, (_, i) => weak(2249 + i)),
    ])
    const first = await search(id, { q: 'release', mode: 'all', limit: '3' })
    expect(hitIds(first)[0]).toBe('new-best')
    expect(hitIds(first).slice(1)).toEqual(['m2497', 'm2496']) // ties newest first
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page = await search(id, { q: 'release', mode: 'all', limit: '100', ...(cursor ? { cursor } : {}) })
      expect(page.status).toBe(200)
      seen.push(...hitIds(page))
      cursor = page.body.nextCursor
    } while (cursor)
    expect(seen).toHaveLength(2500)
    expect(new Set(seen).size).toBe(2500)
    // The oldest window is ranked on its own, after the newer ones: its best match leads it.
    expect(seen.indexOf('old-best')).toBe(2000)
    expect(seen.indexOf('new-best')).toBe(0)
    // Scopes page the same way: compaction hides all but the newest 100 turns.
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 100 } } } })
    const all = async (scope: string) => {
      const ids: string[] = []
      let next: string | null = null
      do {
        const page = await search(id, { q: 'release', mode: 'all', limit: '100', scope, ...(next ? { cursor: next } : {}) })
        ids.push(...hitIds(page))
        next = page.body.nextCursor
      } while (next)
      return ids
    }
    const covered = await all('covered')
    const inView = await all('view')
    expect(covered).toHaveLength(2400)
    expect(covered).toContain('old-best')
    expect(inView).toHaveLength(100)
    expect(inView).not.toContain('new-best')
    expect(new Set([...covered, ...inView]).size).toBe(2500)
  })
  it('400s: no word, over 512 characters, bad limit, scope, role or cursor; 404 for another user', async () => {
    const id = await seeded()
    const bad: [Record<string, string>, string][] = [
      [{ q: '' }, 'q'],
      [{ q: '***' }, 'q'],
      [{ q: '-:()' }, 'q'],
      [{ q: 'x'.repeat(513) }, 'q'],
      [{ q: 'a', limit: '0' }, 'limit'],
      [{ q: 'a', limit: '-2' }, 'limit'],
      [{ q: 'a', limit: 'ten' }, 'limit'],
      [{ q: 'a', scope: 'everything' }, 'scope'],
      [{ q: 'a', role: 'robot' }, 'role'],
      [{ q: 'a', cursor: 'not-a-cursor' }, 'cursor'],
      [{ q: 'a', cursor: btoa('search:-1') }, 'cursor'],
    ]
    for (const [params, field] of bad) {
      const result = await search(id, params)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(params)).toContain(field)
    }
    expect((await search(id, {})).status).toBe(400)
    expectError(await search(id, { q: 'zurich' }, 'bob'), 404, 'not_found')
    expectError(await search(newSessionId(), { q: 'zurich' }), 404, 'not_found')
  })

  it('never fails on hostile input: operators, quotes, stars, columns, odd Unicode — hits or none, never a 500', async () => {
    const id = await seeded()
    const hostile = [
      'NEAR(zurich budget)',
      'zurich OR budget',
      'NOT zurich',
      'zurich AND',
      '"unclosed zurich',
      '""""',
      'text:zurich',
      '{text}: zurich',
      'zurich*',
      '*zurich',
      'zur**',
      '^zurich',
      '- zurich -',
      "'; DROP TABLE events; --",
      'zu\u0000rich',
      '\u202ezurich',
      'zürich\u0301',
      '🚀 zurich 🚀',
      'ＺＵＲＩＣＨ',
      '\ud800 zurich',
      'a'.repeat(512),
    ]
    for (const q of hostile) {
      const result = await search(id, { q })
      expect([200, 400], `${JSON.stringify(q)}: ${result.text.slice(0, 200)}`).toContain(result.status)
    }
    expect(hitIds(await search(id, { q: 'NEAR(zurich budget)', mode: 'all' }))).toEqual([]) // NEAR is a word, and no event has it
    expect(hitIds(await search(id, { q: "'; DROP TABLE events; --" }))).toEqual([])
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events).toHaveLength(6)
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 40 }), async (q) => {
        const result = await search(id, { q: q === '' ? ' ' : q })
        expect([200, 400]).toContain(result.status)
      }),
      { numRuns: 40 },
    )
  })

  it('keys the index by -seq, so that its doclists are walked newest first', async () => {
    const id = await seeded()
    const rowids = await runInDurableObject(sessionStub(env, 'alice', id), async (_instance, state) =>
      state.storage.sql
        .exec<{ rowid: number }>('SELECT rowid FROM search ORDER BY rowid')
        .toArray()
        .map((row) => row.rowid),
    )
    expect(rowids).toEqual([-6, -5, -4, -3, -2, -1])
  })

  it('merges the index after appends rather than inside them, and stays whole and searchable', async () => {
    const id = newSessionId()
    for (let i = 0; i < 40; i++) await append(id, [user(`merge note ${i} about lanterns`)])
    const stub = sessionStub(env, 'alice', id)
    const sql = <T>(work: (sql: SqlStorage) => T) => runInDurableObject(stub, async (_instance, state) => work(state.storage.sql))
    // Nothing merges inside an append: FTS5's own merging is off, but for a crisis of 64 segments.
    const config = await sql((db) =>
      db.exec<{ k: string; v: number }>("SELECT k, v FROM search_config WHERE k IN ('automerge', 'crisismerge')").toArray(),
    )
    expect(Object.fromEntries(config.map((row) => [row.k, row.v]))).toEqual({ automerge: 0, crisismerge: 64 })
    // 40 appends made 40 segments. The merges scheduled after them leave a few: FTS5 merges a level once it
    // holds 4 segments, so fewer than 4 stay at each level (row 10 holds its structure, the segments follow).
    const segments = () => sql((db) => db.exec<{ n: number }>('SELECT count(*) AS n FROM search_data WHERE id > 10').one().n)
    await until(async () => (await segments()) <= 10, 'the merges scheduled after the appends')
    // FTS5's own check of the index against its content: throws if anything is amiss.
    await sql((db) => db.exec("INSERT INTO search (search, rank) VALUES ('integrity-check', 1)"))
    const page = await search(id, { q: 'lanterns', limit: '100' })
    expect(page.body.hits).toHaveLength(40)
  })
})
