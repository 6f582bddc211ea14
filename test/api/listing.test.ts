import { runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { sessionStub } from '../../src/object/address'
import { append, call, expectError, newSessionId, user } from '../helpers'

// The code's clock an hour ahead of workerd's: the alarm a write sets (which updates the
// session's entry in its user's list) waits for the test to run it.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() + 3600_000)
})
afterEach(() => vi.useRealTimers())

type Listed = { id: string; title: string | null }
const list = async (params: Record<string, string>, as: string) => {
  const result = await call('GET', `/v1/sessions?${new URLSearchParams(params)}`, { user: as })
  expect(result.status, result.text).toBe(200)
  return result.body as { sessions: Listed[]; nextCursor: string | null }
}
const ids = (page: { sessions: Listed[] }) => page.sessions.map((session) => session.id)

/** A user of its own, so that a list holds this test's sessions alone. */
const newUser = () => `lister-${newSessionId()}`

async function create(as: string, body: Record<string, unknown>, first?: string) {
  const id = newSessionId('l')
  expect((await call('POST', '/v1/sessions', { user: as, body: { id, ...body } })).status).toBe(201)
  if (first) await append(id, [user(first)], as)
  await runDurableObjectAlarm(sessionStub(env, as, id))
  return id
}

describe('GET /v1/sessions, filtered and ordered', () => {
  it('q: every word in the title or the first user message, case and accents folded, a word’s start', async () => {
    const as = newUser()
    const login = await create(as, {}, 'Why does the login page redirect twice?')
    const zurich = await create(as, { title: 'Trip to Zürich' }, 'Book the hotel')
    await create(as, {}, 'Lunch plans')
    expect(ids(await list({ q: 'LOGIN redirect' }, as))).toEqual([login])
    expect(ids(await list({ q: 'zurich' }, as))).toEqual([zurich])
    expect(ids(await list({ q: 'hotel' }, as))).toEqual([zurich])
    expect(ids(await list({ q: 'redir' }, as))).toEqual([login])
    expect(ids(await list({ q: 'direct' }, as))).toEqual([])
    // Each listed session shows its title.
    expect((await list({ q: 'login' }, as)).sessions[0]!.title).toBe('Why does the login page redirect twice?')
  })

  it('metadata.<key>=<value>: each pair, its value as text', async () => {
    const as = newUser()
    const web = await create(as, { metadata: { channel: 'web', tier: 2, beta: true, 'a.b': 'dotted' } })
    const app = await create(as, { metadata: { channel: 'app', tier: 2 } })
    expect(ids(await list({ 'metadata.channel': 'web' }, as))).toEqual([web])
    expect(ids(await list({ 'metadata.tier': '2' }, as))).toEqual([app, web])
    expect(ids(await list({ 'metadata.tier': '2', 'metadata.beta': 'true' }, as))).toEqual([web])
    expect(ids(await list({ 'metadata.a.b': 'dotted' }, as))).toEqual([web])
    expect(ids(await list({ 'metadata.channel': 'fax' }, as))).toEqual([])
    // A patch of the metadata is listed at once.
    await call('PATCH', `/v1/sessions/${app}`, { user: as, body: { metadata: { channel: 'web' } } })
    expect(ids(await list({ 'metadata.channel': 'web' }, as))).toEqual([app, web])
  })

  it('order=updated: the most recently appended to first; updatedAfter and updatedBefore; paged with its cursor', async () => {
    const as = newUser()
    const start = Date.now()
    const older = await create(as, {}, 'first session')
    vi.setSystemTime(start + 60_000)
    const newer = await create(as, {}, 'second session')
    vi.setSystemTime(start + 120_000)
    await append(older, [user('back to the first')], as)
    expect(ids(await list({}, as))).toEqual([newer, older])
    // Its entry is updated by the alarm the append set (here run by the test).
    expect(await runDurableObjectAlarm(sessionStub(env, as, older))).toBe(true)
    expect(ids(await list({ order: 'updated' }, as))).toEqual([older, newer])
    const at = (ms: number) => new Date(start + ms).toISOString()
    expect(ids(await list({ updatedAfter: at(90_000) }, as))).toEqual([older])
    expect(ids(await list({ updatedBefore: at(90_000) }, as))).toEqual([newer])
    const first = await list({ order: 'updated', limit: '1' }, as)
    expect(ids(first)).toEqual([older])
    const second = await list({ order: 'updated', limit: '1', cursor: first.nextCursor! }, as)
    expect(ids(second)).toEqual([newer])
    expect(second.nextCursor).toBeNull()
    // A cursor of a list in another order is refused.
    expectError(await call('GET', `/v1/sessions?cursor=${first.nextCursor}`, { user: as }), 400, 'invalid_request')
  })

  it('forkedFrom: the forks of a session', async () => {
    const as = newUser()
    const source = await create(as, {}, 'the source')
    const fork = newSessionId('fork')
    expect((await call('POST', `/v1/sessions/${source}/fork`, { user: as, body: { id: fork } })).status).toBe(201)
    await create(as, {}, 'unrelated')
    expect(ids(await list({ forkedFrom: source }, as))).toEqual([fork])
  })

  it('400s an unknown parameter, a bad metadata key, too many filters, bad times and orders, naming them', async () => {
    const bad: [Record<string, string>, string][] = [
      [{ colour: 'red' }, 'colour'],
      [{ 'metadata.a"b': 'x' }, 'metadata.a"b'],
      [Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`metadata.k${i}`, 'v'])), 'metadata'],
      [{ updatedAfter: 'last week' }, 'updatedAfter'],
      [{ order: 'alphabetical' }, 'order'],
      [{ forkedFrom: '..' }, 'forkedFrom'],
    ]
    for (const [params, field] of bad) {
      const result = await call('GET', `/v1/sessions?${new URLSearchParams(params)}`)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(params)).toContain(field)
    }
  })
})
