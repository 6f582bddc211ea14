import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { acrossSessions } from '../../src/contract/search-settings'
import { encodeBase64 } from '../../src/core/media/base64'
import { searchShardStub, sessionStub, shardOf } from '../../src/object/address'
import { append, assistant, call, expectError, newSessionId, until, user } from '../helpers'

// The code's clock an hour ahead of workerd's: an alarm a write sets then waits for the test to
// run it (runDurableObjectAlarm) instead of firing on its own, so nothing depends on timing.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() + 3600_000)
})
afterEach(() => vi.useRealTimers())

type Hit = {
  sessionId: string
  sessionTitle: string | null
  event: { id: string; seq: number }
  snippet: string
  covered: boolean
  match: string
}
type Page = { hits: Hit[]; nextCursor: string | null }

const searchAll = async (params: Record<string, string>, as = 'alice') => {
  const result = await call('GET', `/v1/search?${new URLSearchParams(params)}`, { user: as })
  expect(result.status, result.text).toBe(200)
  return result.body as Page
}
const found = (page: Page) => page.hits.map((hit) => `${hit.sessionId}/${hit.event.id}`)

/**
 * Runs the session's alarm: the hand-over its writes set, which gives its events to its user's
 * search shard (the test drives it, so nothing waits for a time). Expects it to have been set
 * within the 2 s the contract promises.
 */
async function handOver(id: string, as = 'alice') {
  const stub = sessionStub(env, as, id)
  const at = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())
  expect(at, 'the write set the alarm').not.toBeNull()
  expect(at! - Date.now()).toBeLessThanOrEqual(2000)
  expect(await runDurableObjectAlarm(stub)).toBe(true)
}

/** A session with these turns, handed over. */
async function sessionWith(texts: [string, string][], as = 'alice', prefix = 'x') {
  const id = newSessionId(prefix)
  await append(
    id,
    texts.flatMap(([question, answer], i) => [user(question, `${id}-u${i}`), assistant(answer, `${id}-a${i}`)]),
    as,
  )
  await handOver(id, as)
  return id
}

describe('GET /v1/search', () => {
  it("finds a write in all of the caller's sessions once its session's hand-over ran (set by the write, within 2 s), not in the append itself", async () => {
    const word = `zephyrine${Date.now().toString(36)}`
    const id = newSessionId('fresh')
    await append(id, [user(`the ${word} deploy broke the login page`, 'w1')])
    // The append indexed nothing across sessions: that is its alarm's work.
    expect((await searchAll({ q: word })).hits).toEqual([])
    await handOver(id)
    const page = await searchAll({ q: word })
    expect(page.hits).toHaveLength(1)
    expect(page.hits[0]).toMatchObject({
      sessionId: id,
      sessionTitle: `the ${word} deploy broke the login page`,
      event: { id: 'w1', seq: 1 },
      covered: false,
      match: 'all',
    })
    expect(page.hits[0]!.snippet).toContain(word)
  })

  it('ranks the hits of every session as one, each naming its session, and a question finds its answer', async () => {
    const tag = Date.now().toString(36)
    const login = await sessionWith([[`login bug ${tag} again?`, 'I fixed the login bug by resetting the session cookie.']])
    const lunch = await sessionWith([[`lunch plans ${tag}?`, 'Tacos at noon, then the bug bash.']])
    await sessionWith([[`trip ${tag}`, 'We went to Lisbon with my sister.']])
    const page = await searchAll({ q: `which session was it where I fixed the login bug ${tag}` })
    expect(found(page)[0]).toBe(`${login}/${login}-a0`)
    expect(page.hits.map((hit) => hit.sessionId)).toContain(lunch)
    // Every word of it in one event first with mode auto: the login session's question and answer.
    const all = await searchAll({ q: `login bug ${tag}`, mode: 'all' })
    expect(found(all)).toEqual([`${login}/${login}-u0`])
    // Verb forms and stems across sessions too: "go" finds "went".
    expect(found(await searchAll({ q: `go lisbon ${tag}`, mode: 'all' }))).toEqual([])
    expect(found(await searchAll({ q: 'go lisbon sister', mode: 'all' })).length).toBeGreaterThan(0)
  })

  it('finds a text/plain document by its text, which no event holds, as the session’s own search does', async () => {
    const word = `narwhal${Date.now().toString(36)}`
    const id = newSessionId('doc')
    const notes = new TextEncoder().encode(`Minutes: the ${word} budget was approved.\n`)
    const document = { type: 'document', mediaType: 'text/plain', data: encodeBase64(notes) }
    await append(id, [{ id: 'd1', message: { role: 'user', content: [document] } }])
    await handOver(id)
    expect(found(await searchAll({ q: word }))).toEqual([`${id}/d1`])
  })

  it('filters by sessions, role and time, and pages with the cursor, every hit once', async () => {
    const tag = `p${Date.now().toString(36)}`
    const ids: string[] = []
    for (let s = 0; s < 3; s++)
      ids.push(await sessionWith(Array.from({ length: 4 }, (_, i) => [`${tag} question ${s}.${i}`, `${tag} answer ${s}.${i}`])))
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Page = await searchAll({ q: tag, limit: '5', ...(cursor ? { cursor } : {}) })
      expect(page.hits.length).toBeLessThanOrEqual(5)
      seen.push(...found(page))
      cursor = page.nextCursor
    } while (cursor)
    expect(seen).toHaveLength(24)
    expect(new Set(seen).size).toBe(24)
    const one = await searchAll({ q: tag, sessions: ids[1]!, limit: '100' })
    expect(new Set(one.hits.map((hit) => hit.sessionId))).toEqual(new Set([ids[1]]))
    expect(one.hits).toHaveLength(8)
    const answers = await searchAll({ q: tag, role: 'assistant', limit: '100' })
    expect(answers.hits).toHaveLength(12)
    expect(answers.hits.every((hit) => hit.event.id.includes('-a'))).toBe(true)
    expect((await searchAll({ q: tag, since: '2999-01-01T00:00:00Z' })).hits).toEqual([])
    expect((await searchAll({ q: tag, until: '2000-01-01T00:00:00+02:00' })).hits).toEqual([])
    expect((await searchAll({ q: tag, since: new Date(Date.now() - 3600_000).toISOString(), limit: '100' })).hits).toHaveLength(
      24,
    )
  })

  it("never returns another user's events, nor searches another user's session named in `sessions`", async () => {
    const word = `bobsecret${Date.now().toString(36)}`
    const bobs = await sessionWith([[`${word} password hint`, 'noted']], 'bob')
    expect((await searchAll({ q: word })).hits).toEqual([])
    expect((await searchAll({ q: word, sessions: bobs })).hits).toEqual([])
    expect(found(await searchAll({ q: word }, 'bob'))).toEqual([`${bobs}/${bobs}-u0`])
  })

  it('never returns a deleted session’s events from the moment its delete is answered, even racing it', async () => {
    for (let round = 0; round < 8; round++) {
      const word = `gone${round}x${Date.now().toString(36)}`
      const id = await sessionWith([[`${word} to forget`, 'ok']])
      expect((await searchAll({ q: word })).hits).toHaveLength(1)
      const [deleted, racing] = await Promise.all([call('DELETE', `/v1/sessions/${id}`), call('GET', `/v1/search?q=${word}`)])
      expect(deleted.status).toBe(204)
      // A search racing the delete answers the hit or none, never an error.
      expect(racing.status).toBe(200)
      expect(racing.body.hits.length).toBeLessThanOrEqual(1)
      expect((await searchAll({ q: word })).hits).toEqual([])
    }
  })

  it('never returns an expired session’s events, though its shard still holds them', async () => {
    const word = `ttl${Date.now().toString(36)}`
    const id = newSessionId('ttl')
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 60 } })
    await append(id, [user(`${word} expires soon`, 'e1')])
    await handOver(id)
    expect((await searchAll({ q: word })).hits).toHaveLength(1)
    vi.setSystemTime(Date.now() + 61_000)
    expect((await searchAll({ q: word })).hits).toEqual([])
  })

  it('never returns an erased user’s events once the erasure is answered, and the shards hide them too', async () => {
    // The real clock here: the erasure compares creation times the Worker and the objects stamp.
    vi.useRealTimers()
    const as = `eraser-${newSessionId()}`
    const word = `erased${Date.now().toString(36)}`
    const id = newSessionId('erase')
    await append(id, [user(`${word} secret`)], as)
    await until(async () => (await searchAll({ q: word }, as)).hits.length === 1, 'the session handed over')
    expect((await call('DELETE', '/v1/sessions', { user: as, body: { all: true } })).body).toEqual({ erased: 1 })
    expect((await searchAll({ q: word }, as)).hits).toEqual([])
    // The shard itself no longer offers the session's events as candidates.
    const { shards } = acrossSessions(env)
    const part = await searchShardStub(env, as, shards, shardOf(id, shards)).search({ q: word, mode: 'auto', want: 10 })
    expect(part.candidates).toEqual([])
  })

  it('never returns a session its shard knows of but that does not exist (a late hand-over), and tells the shard to forget it', async () => {
    const word = `ghost${Date.now().toString(36)}`
    const { shards } = acrossSessions(env)
    const id = newSessionId('ghost')
    const shard = searchShardStub(env, 'alice', shards, shardOf(id, shards))
    const createdAt = new Date().toISOString()
    await shard.add({ sessionId: id, createdAt, events: [{ seq: 1, role: 'user', at: createdAt, text: `${word} haunts` }] })
    expect((await searchAll({ q: word })).hits).toEqual([])
    // Told once the search found it gone: a batch sent late for it adds nothing more.
    expect(
      await shard.add({ sessionId: id, createdAt, events: [{ seq: 2, role: 'user', at: createdAt, text: `${word} again` }] }),
    ).toBe(0)
  })

  it('400s a query with no word, bad sessions, times, modes and cursors, naming the field', async () => {
    const bad: [Record<string, string>, string][] = [
      [{ q: '***' }, 'q'],
      [{ q: 'x'.repeat(513) }, 'q'],
      [{ q: 'a', mode: 'fuzzy' }, 'mode'],
      [{ q: 'a', sessions: 'ok,..' }, 'sessions'],
      [{ q: 'a', sessions: Array.from({ length: 101 }, (_, i) => `s${i}`).join(',') }, 'sessions'],
      [{ q: 'a', since: 'yesterday' }, 'since'],
      [{ q: 'a', until: '2020-13-01' }, 'until'],
      [{ q: 'a', role: 'robot' }, 'role'],
      [{ q: 'a', cursor: 'nope' }, 'cursor'],
      [{ q: 'a', limit: '0' }, 'limit'],
    ]
    for (const [params, field] of bad) {
      const result = await call('GET', `/v1/search?${new URLSearchParams(params)}`)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(params)).toContain(field)
    }
  })

  it('never fails on hostile input, across sessions as in one: operators, quotes, stars, odd Unicode, 512 characters of words', async () => {
    await sessionWith([['zurich budget NEAR the café', 'ok']])
    const hostile = [
      'NEAR(zurich budget)',
      'zurich OR budget',
      'NOT zurich',
      '"unclosed zurich',
      '""""',
      'text:zurich',
      '{text}: zurich',
      '*zurich',
      'zur**',
      "'; DROP TABLE docs; --",
      'zu\u0000rich',
      '\u202ezurich',
      '🚀 zurich 🚀',
      'ＺＵＲＩＣＨ',
      '\ud800 zurich',
      'a'.repeat(512),
      Array.from({ length: 120 }, (_, i) => `w${i}`)
        .join(' ')
        .slice(0, 512),
      'the the the the when did to of and',
    ]
    for (const q of hostile) {
      for (const mode of ['auto', 'any', 'all']) {
        const result = await call('GET', `/v1/search?${new URLSearchParams({ q, mode })}`)
        expect([200, 400], `${JSON.stringify(q)} ${mode}: ${result.text.slice(0, 200)}`).toContain(result.status)
      }
      // The listing's q as well.
      const listed = await call('GET', `/v1/sessions?${new URLSearchParams({ q })}`)
      expect([200, 400], `${JSON.stringify(q)}: ${listed.text.slice(0, 200)}`).toContain(listed.status)
    }
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), fc.constantFrom('auto', 'any', 'all'), async (q, mode) => {
        const result = await call('GET', `/v1/search?${new URLSearchParams({ q: q === '' ? ' ' : q, mode })}`)
        expect([200, 400]).toContain(result.status)
      }),
      { numRuns: 40 },
    )
  })
})
