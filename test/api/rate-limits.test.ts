import { evictDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { app } from '../../src/http/app'
import { userIndexStub } from '../../src/object/address'
import { newSessionId, tokenFor } from '../helpers'

/** The limits off but for what a test sets: a deployment's variables, as the Worker reads them. */
const OFF = { RATE_LIMIT_REQUESTS: '0', RATE_LIMIT_TURNS: '0', TOKEN_QUOTA_DAILY: '0', MAX_QUEUED_TURNS: '0' }

let users = 0
const newUser = () => `limited-${Date.now().toString(36)}-${++users}`

/** Calls the real app as `user` under these limits. */
async function as(
  user: string,
  vars: Partial<Env>,
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = { Authorization: `Bearer ${await tokenFor(user)}`, ...extra }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const response = await app.request(
    path,
    { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
    { ...env, ...OFF, ...vars },
  )
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null }
}
const turn = (user: string, vars: Partial<Env>, session: string, body: Record<string, unknown>) =>
  as(user, vars, 'POST', `/v1/sessions/${session}/turns`, { compaction: false, ...body })
const versionOf = async (user: string, session: string) => (await as(user, {}, 'GET', `/v1/sessions/${session}`)).body?.version

/** The contract's 429: its code, and headers describing the limit that refused. */
function expectRefused(result: Awaited<ReturnType<typeof as>>, scope: string, limit: number) {
  expect(result.status).toBe(429)
  expect(result.body.error.code).toBe('rate_limited')
  expect(result.headers.get('X-RateLimit-Scope')).toBe(scope)
  expect(result.headers.get('X-RateLimit-Limit')).toBe(String(limit))
  expect(result.headers.get('X-RateLimit-Remaining')).toBe('0')
  const retryAfter = Number(result.headers.get('Retry-After'))
  const reset = Number(result.headers.get('X-RateLimit-Reset'))
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(Math.abs(reset - (Date.now() / 1000 + retryAfter))).toBeLessThanOrEqual(2)
  return { retryAfter, reset }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('rate limits per user', () => {
  it('RATE_LIMIT_REQUESTS: the limit is allowed, the next is refused until the minute turns; other users are unaffected', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 0, 10))
    const [user, other] = [newUser(), newUser()]
    const vars = { RATE_LIMIT_REQUESTS: '5' }
    for (let i = 0; i < 5; i++) expect((await as(user, vars, 'GET', '/v1/sessions')).status).toBe(200)
    const refused = expectRefused(await as(user, vars, 'GET', '/v1/sessions'), 'requests', 5)
    expect(refused.retryAfter).toBe(50)
    expect(refused.reset).toBe(Date.UTC(2026, 11, 1, 12, 1, 0) / 1000)
    // Nothing is written on a 429, appends included.
    expectRefused(
      await as(user, vars, 'POST', '/v1/sessions/x/events', { events: [{ message: { role: 'user', content: 'hi' } }] }),
      'requests',
      5,
    )
    expect((await as(user, {}, 'GET', '/v1/sessions/x')).status).toBe(404)
    expect((await as(other, vars, 'GET', '/v1/sessions')).status).toBe(200)
    vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 1, 0))
    expect((await as(user, vars, 'GET', '/v1/sessions')).status).toBe(200)
  })

  it('RATE_LIMIT_TURNS is exact under concurrency: of 8 turns at once with a limit of 5, exactly 5 run', async () => {
    const user = newUser()
    const vars = { RATE_LIMIT_TURNS: '5' }
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => turn(user, vars, `s${i}`, { content: `hello ${i}` })))
    const statuses = results.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    for (const [i, result] of results.entries())
      if (result.status === 429) {
        expectRefused(result, 'turns', 5)
        expect(await versionOf(user, `s${i}`)).toBeUndefined() // nothing written, not even the session
      }
  })

  it('counts turns, continuations and chat completions that reach the model (an upstream failure included), not retries from storage', async () => {
    const user = newUser()
    const vars = { RATE_LIMIT_TURNS: '3' }
    const id = newSessionId()
    const first = await turn(user, vars, id, { id: 'u1', content: 'one' })
    expect(first.status).toBe(200)
    expect((await turn(user, vars, id, { content: 'two', model: 'fail-500' })).status).toBe(502)
    const completion = await as(
      user,
      vars,
      'POST',
      '/v1/chat/completions',
      { model: 'echo', messages: [{ role: 'user', content: 'three' }] },
      { 'X-Session-Id': 'front' },
    )
    expect(completion.status).toBe(200)
    const version = await versionOf(user, id)
    expectRefused(await turn(user, vars, id, { content: 'four' }), 'turns', 3)
    expect(await versionOf(user, id)).toBe(version)
    // A retry answered from storage is never refused and never counted.
    const retry = await turn(user, vars, id, { id: 'u1', content: 'one' })
    expect(retry.status).toBe(200)
    expect(retry.body.reply.id).toBe(first.body.reply.id)
  })

  it('a turn that never reaches the model (413) does not count; a refused turn counts toward no limit', async () => {
    const user = newUser()
    const vars = { RATE_LIMIT_TURNS: '1', RATE_LIMIT_REQUESTS: '4' }
    const huge = 'word '.repeat(20_000)
    expect((await turn(user, vars, 'a', { content: huge })).status).toBe(413) // request 1
    expect((await turn(user, vars, 'a', { content: 'fits' })).status).toBe(200) // request 2, the one turn
    expectRefused(await turn(user, vars, 'a', { content: 'again' }), 'turns', 1) // refused: no request counted
    expect((await as(user, vars, 'GET', '/v1/sessions')).status).toBe(200) // request 3
    expect((await as(user, vars, 'GET', '/v1/sessions')).status).toBe(200) // request 4
    expectRefused(await as(user, vars, 'GET', '/v1/sessions'), 'requests', 4)
  })

  it('TOKEN_QUOTA_DAILY: the turn that crosses it completes, later turns are refused until the UTC day turns; reads and appends go on', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.UTC(2026, 11, 1, 22, 0, 0))
    const user = newUser()
    const vars = { TOKEN_QUOTA_DAILY: '20' }
    const crossing = await turn(user, vars, 'q', {
      id: 'big',
      content: 'a question long enough to cross a twenty token quota at once',
    })
    expect(crossing.status).toBe(200)
    expect(crossing.body.usage.totalTokens).toBeGreaterThan(20)
    const refused = expectRefused(await turn(user, vars, 'q', { content: 'more' }), 'tokens', 20)
    expect(refused.reset).toBe(Date.UTC(2026, 11, 2) / 1000)
    expectRefused(
      await as(
        user,
        vars,
        'POST',
        '/v1/chat/completions',
        { model: 'echo', messages: [{ role: 'user', content: 'x' }] },
        { 'X-Session-Id': 'q2' },
      ),
      'tokens',
      20,
    )
    expect((await as(user, vars, 'GET', '/v1/sessions/q/view')).status).toBe(200)
    expect(
      (await as(user, vars, 'POST', '/v1/sessions/q/events', { events: [{ message: { role: 'user', content: 'noted' } }] }))
        .status,
    ).toBe(201)
    expect(
      (await turn(user, vars, 'q', { id: 'big', content: 'a question long enough to cross a twenty token quota at once' }))
        .status,
    ).toBe(200)
    vi.setSystemTime(Date.UTC(2026, 11, 2, 0, 0, 1))
    expect((await turn(user, vars, 'q', { content: 'a new day' })).status).toBe(200)
  })

  it('summary calls count toward the token quota too', async () => {
    const user = newUser()
    const vars = { TOKEN_QUOTA_DAILY: '30' }
    const events = Array.from({ length: 6 }, (_, i) => ({
      message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i} of a conversation worth summarizing` },
    }))
    expect((await as(user, vars, 'POST', '/v1/sessions/c/events', { events })).status).toBe(201)
    const pass = await as(user, vars, 'POST', '/v1/sessions/c/compact', {
      strategy: { window: { lastTurns: 1 }, summarizer: {} },
    })
    expect(pass.status).toBe(200)
    expect(pass.body.summary.length).toBeGreaterThan(0)
    expectRefused(await turn(user, vars, 'c', { content: 'after the summary' }), 'tokens', 30)
  })

  it('keeps its counts when the user’s index object restarts', async () => {
    const user = newUser()
    const vars = { RATE_LIMIT_TURNS: '1' }
    expect((await turn(user, vars, 'r', { content: 'one' })).status).toBe(200)
    await evictDurableObject(userIndexStub(env, user))
    expectRefused(await turn(user, vars, 'r', { content: 'two' }), 'turns', 1)
  })

  it('MAX_QUEUED_TURNS: one turn more than may wait on a session is refused (scope session), the rest run in order', async () => {
    const user = newUser()
    const vars = { MAX_QUEUED_TURNS: '2', RATE_LIMIT_REQUESTS: '100' }
    const running = turn(user, vars, 'busy', { content: 'slow one', model: 'slow-1500' })
    await new Promise((resolve) => setTimeout(resolve, 300)) // it holds the session
    const waiting = [turn(user, vars, 'busy', { content: 'second' }), turn(user, vars, 'busy', { content: 'third' })]
    await new Promise((resolve) => setTimeout(resolve, 100))
    const extra = await turn(user, vars, 'busy', { content: 'fourth' })
    expectRefused(extra, 'session', 2)
    const done = await Promise.all([running, ...waiting])
    expect(done.map((r) => r.status)).toEqual([200, 200, 200])
    const log = (await as(user, {}, 'GET', '/v1/sessions/busy/events')).body.events
    expect(
      log
        .filter((e: { message: { role: string } }) => e.message.role === 'user')
        .map((e: { message: { content: string } }) => e.message.content),
    ).toEqual(['slow one', 'second', 'third'])
  })

  it('a limit that is not a whole number is a 503 naming it', async () => {
    const result = await as(newUser(), { RATE_LIMIT_TURNS: 'lots' }, 'GET', '/v1/sessions')
    expect(result.status).toBe(503)
    expect(result.body.error).toMatchObject({ code: 'not_configured', message: expect.stringContaining('RATE_LIMIT_TURNS') })
  })
})
