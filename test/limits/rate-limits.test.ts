/**
 * Rate limits per user, as a deployment sets them (see the `limits` project in vitest.config.ts):
 * RATE_LIMIT_REQUESTS=8, RATE_LIMIT_TURNS=3, TOKEN_QUOTA_DAILY=400, MAX_QUEUED_TURNS=2. Each test
 * is a new user, so its counts start at zero.
 */
import { evictDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { userIndexStub } from '../../src/object/address'
import {
  type Call,
  call,
  newSessionId,
  newTag,
  parseSSE,
  releaseUpstream,
  turn as turnAs,
  untilUpstreamReceived,
} from '../helpers'

const SIZE_LIMITS = { requests: 8, turns: 3, tokens: 400, queued: 2 }

let users = 0
const newUser = () => `limited-${Date.now().toString(36)}-${++users}`

const turn = (user: string, session: string, body: Record<string, unknown>) =>
  turnAs(session, { compaction: false, ...body }, user)
const get = (user: string, path: string) => call('GET', path, { user })
const completion = (user: string, session: string, content: string) =>
  call('POST', '/v1/chat/completions', {
    user,
    body: { model: 'echo', messages: [{ role: 'user', content }] },
    headers: { 'X-Session-Id': session },
  })

/** The contract's 429: its code, and headers describing the limit that refused. */
function expectRefused(result: Call, scope: string, limit: number) {
  expect(result.status, result.text).toBe(429)
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

// Every test counts within one window, whatever the wall clock: its minute starts 10 s before.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 0, 10))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('rate limits per user', () => {
  it('RATE_LIMIT_REQUESTS: the limit is allowed, the next is refused until the minute turns; other users are unaffected', async () => {
    const [user, other] = [newUser(), newUser()]
    for (let i = 0; i < SIZE_LIMITS.requests; i++) expect((await get(user, '/v1/sessions')).status).toBe(200)
    const refused = expectRefused(await get(user, '/v1/sessions'), 'requests', SIZE_LIMITS.requests)
    expect(refused.retryAfter).toBe(50)
    expect(refused.reset).toBe(Date.UTC(2026, 11, 1, 12, 1, 0) / 1000)
    // Nothing is written on a 429, appends included.
    const body = { events: [{ message: { role: 'user', content: 'hi' } }] }
    expectRefused(await call('POST', '/v1/sessions/x/events', { user, body }), 'requests', SIZE_LIMITS.requests)
    expect((await get(other, '/v1/sessions')).status).toBe(200)
    vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 1, 0))
    expect((await get(user, '/v1/sessions/x')).status).toBe(404)
    expect((await get(user, '/v1/sessions')).status).toBe(200)
  })

  it('an MCP tool counts toward RATE_LIMIT_REQUESTS as the request it wraps: one a call, refused as its route is', async () => {
    const user = newUser()
    const listSessions = async () => {
      const result = await call('POST', '/mcp', {
        user,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_sessions', arguments: {} } },
        headers: { Accept: 'application/json, text/event-stream' },
      })
      expect(result.status, result.text).toBe(200)
      const type = result.headers.get('Content-Type') ?? ''
      const [answer] = type.startsWith('text/event-stream') ? parseSSE(result.text).map((frame) => frame.data) : [result.body]
      return answer.result as { isError?: boolean; content: { text: string }[] }
    }
    for (let i = 0; i < SIZE_LIMITS.requests - 1; i++) expect((await get(user, '/v1/sessions')).status).toBe(200)
    expect((await listSessions()).isError).toBeFalsy()
    const refused = await listSessions()
    expect(refused.isError).toBe(true)
    expect(refused.content[0]!.text).toMatch(/^429: /)
    expectRefused(await get(user, '/v1/sessions'), 'requests', SIZE_LIMITS.requests)
  })

  it('RATE_LIMIT_TURNS is exact under concurrency: of 5 turns at once with a limit of 3, exactly 3 run', async () => {
    const user = newUser()
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => turn(user, `s${i}`, { content: `hello ${i}` })))
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429])
    for (const [i, result] of results.entries())
      if (result.status === 429) {
        expectRefused(result, 'turns', SIZE_LIMITS.turns)
        expect((await get(user, `/v1/sessions/s${i}`)).status).toBe(404) // nothing written, not even the session
      }
  })

  it('counts turns, continuations and chat completions that reach the model (an upstream failure included), not retries from storage', async () => {
    const user = newUser()
    const id = newSessionId()
    const first = await turn(user, id, { id: 'u1', content: 'one' })
    expect(first.status).toBe(200)
    expect((await turn(user, id, { content: 'two', model: 'fail-500' })).status).toBe(502)
    expect((await completion(user, 'front', 'three')).status).toBe(200)
    const version = (await get(user, `/v1/sessions/${id}`)).body.version
    expectRefused(await turn(user, id, { content: 'four' }), 'turns', SIZE_LIMITS.turns)
    expect((await get(user, `/v1/sessions/${id}`)).body.version).toBe(version)
    // A retry answered from storage is never refused and never counted.
    const retry = await turn(user, id, { id: 'u1', content: 'one' })
    expect(retry.status).toBe(200)
    expect(retry.body.reply.id).toBe(first.body.reply.id)
  })

  it('a turn that never reaches the model (413) does not count; a refused turn counts toward no limit', async () => {
    const user = newUser()
    expect((await turn(user, 'a', { content: 'word '.repeat(20_000) })).status).toBe(413) // request 1, no turn
    for (let i = 0; i < SIZE_LIMITS.turns; i++) expect((await turn(user, 'a', { content: `fits ${i}` })).status).toBe(200) // requests 2–4
    expectRefused(await turn(user, 'a', { content: 'again' }), 'turns', SIZE_LIMITS.turns) // refused: no request counted
    for (let i = 1 + SIZE_LIMITS.turns; i < SIZE_LIMITS.requests; i++) expect((await get(user, '/v1/sessions')).status).toBe(200)
    expectRefused(await get(user, '/v1/sessions'), 'requests', SIZE_LIMITS.requests)
  })

  it('TOKEN_QUOTA_DAILY: the turn that crosses it completes, later turns are refused until the UTC day turns; reads and appends go on', async () => {
    vi.setSystemTime(Date.UTC(2026, 11, 1, 22, 0, 0))
    const user = newUser()
    const big = { id: 'big', content: `a question long enough to cross the quota at once: ${'word '.repeat(500)}` }
    const crossing = await turn(user, 'q', big)
    expect(crossing.status).toBe(200)
    expect(crossing.body.usage.totalTokens).toBeGreaterThan(SIZE_LIMITS.tokens)
    const refused = expectRefused(await turn(user, 'q', { content: 'more' }), 'tokens', SIZE_LIMITS.tokens)
    expect(refused.reset).toBe(Date.UTC(2026, 11, 2) / 1000)
    expectRefused(await completion(user, 'q2', 'x'), 'tokens', SIZE_LIMITS.tokens)
    expect((await get(user, '/v1/sessions/q/view')).status).toBe(200)
    const noted = { events: [{ message: { role: 'user', content: 'noted' } }] }
    expect((await call('POST', '/v1/sessions/q/events', { user, body: noted })).status).toBe(201)
    expect((await turn(user, 'q', big)).status).toBe(200) // the retry, from storage
    vi.setSystemTime(Date.UTC(2026, 11, 2, 0, 0, 1))
    expect((await turn(user, 'q', { content: 'a new day' })).status).toBe(200)
  })

  it('summary calls count toward the token quota too', async () => {
    const user = newUser()
    const events = Array.from({ length: 6 }, (_, i) => ({
      message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i} of a conversation worth summarizing. `.repeat(25) },
    }))
    expect((await call('POST', '/v1/sessions/c/events', { user, body: { events } })).status).toBe(201)
    const pass = await call('POST', '/v1/sessions/c/compact', {
      user,
      body: { strategy: { window: { lastTurns: 1 }, summarizer: {} } },
    })
    expect(pass.status).toBe(200)
    expect(pass.body.summary.length).toBeGreaterThan(0)
    expectRefused(await turn(user, 'c', { content: 'after the summary' }), 'tokens', SIZE_LIMITS.tokens)
  })

  it('keeps its counts when the user’s index object restarts', async () => {
    const user = newUser()
    for (let i = 0; i < SIZE_LIMITS.turns; i++) expect((await turn(user, 'r', { content: `turn ${i}` })).status).toBe(200)
    await evictDurableObject(userIndexStub(env, user))
    expectRefused(await turn(user, 'r', { content: 'one more' }), 'turns', SIZE_LIMITS.turns)
  })

  it('MAX_QUEUED_TURNS: one turn more than may wait on a session is refused (scope session), the rest run after the running one', async () => {
    const user = newUser()
    const tag = newTag()
    const running = turn(user, 'busy', { content: 'held one', model: `hold#${tag}` })
    await untilUpstreamReceived(tag) // it holds the session: its model call is waiting
    const more = ['second', 'third', 'fourth'].map((content) => turn(user, 'busy', { content }))
    // While the session is held only a refusal can answer: whichever of the three came last.
    expectRefused(await Promise.race(more), 'session', SIZE_LIMITS.queued)
    await releaseUpstream(tag)
    const [held, ...rest] = await Promise.all([running, ...more])
    expect(held!.status).toBe(200)
    expect(rest.map((r) => r.status).sort()).toEqual([200, 200, 429])
    const ran = rest.filter((r) => r.status === 200).map((r) => r.body.events[0].message.content)
    const log = (await get(user, '/v1/sessions/busy/events')).body.events
    const asked = log.filter((e: any) => e.message.role === 'user').map((e: any) => e.message.content)
    expect(asked[0]).toBe('held one')
    expect(asked.slice(1).sort()).toEqual(ran.sort())
  })
})
