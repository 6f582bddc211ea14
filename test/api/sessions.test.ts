import { afterEach, describe, expect, it, vi } from 'vitest'
import { append, call, expectError, newSessionId, user } from '../helpers'

afterEach(() => vi.useRealTimers())

/** Freezes Date, the service's clock, at a whole second; answers it (ISO times below are exact, not near the wall clock). */
function frozenClock(): number {
  const at = Math.floor(Date.now() / 1000) * 1000
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(at)
  return at
}
const iso = (at: number) => new Date(at).toISOString()

describe('POST /v1/sessions', () => {
  it('creates a session owned by the caller, with defaults', async () => {
    const id = newSessionId()
    const now = frozenClock()
    const created = await call('POST', '/v1/sessions', { body: { id, metadata: { channel: 'web' } } })
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      id,
      userId: 'alice',
      createdAt: iso(now),
      expiresAt: null,
      idleTtlSeconds: null,
      metadata: { channel: 'web' },
      version: 0,
      policy: null,
      stats: { events: 0, viewEvents: 0, viewTokens: 0, turns: 0 },
      forkedFrom: null,
      title: null,
      titleSource: null,
    })
  })

  it('makes up an id when none is given, and accepts an empty or absent body', async () => {
    const absent = await call('POST', '/v1/sessions')
    expect(absent.status).toBe(201)
    expect(absent.body.id).toMatch(/^ses_[0-9a-f]{32}$/)
    const empty = await call('POST', '/v1/sessions', { body: '', headers: { 'Content-Type': 'application/json' } })
    expect(empty.status).toBe(201)
    expect(empty.body.id).not.toBe(absent.body.id)
  })

  it('409 session_exists when the caller already has that id', async () => {
    const id = newSessionId()
    expect((await call('POST', '/v1/sessions', { body: { id } })).status).toBe(201)
    expectError(await call('POST', '/v1/sessions', { body: { id } }), 409, 'session_exists')
  })

  it('stores ttl and policy', async () => {
    const id = newSessionId()
    const policy = { trigger: { turnCount: 10 }, strategy: { window: { lastTurns: 4 } } }
    const now = frozenClock()
    const created = await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 3600, policy } })
    expect(created.body.policy).toEqual(policy)
    expect(created.body.expiresAt).toBe(iso(now + 3600_000))
  })

  it('fills a policy without a strategy with the default one', async () => {
    const created = await call('POST', '/v1/sessions', { body: { id: newSessionId(), policy: { trigger: { always: true } } } })
    expect(created.body.policy).toEqual({ trigger: { always: true }, strategy: {} })
  })

  it.each([
    [{ id: 'has space' }, 'id: must be 1–128 characters of A-Z a-z 0-9 . _ : -'],
    [{ id: 'x'.repeat(129) }, 'id: must be 1–128 characters'],
    [{ ttlSeconds: 0 }, 'ttlSeconds:'],
    [{ ttlSeconds: 1.5 }, 'ttlSeconds:'],
    [{ metadata: [] }, 'metadata:'],
    [{ policy: { trigger: { turnCount: 0 } } }, 'policy.trigger.turnCount: must be an integer ≥ 1'],
    [
      { policy: { trigger: { always: true }, strategy: { window: { lastEvents: -1 } } } },
      'policy.strategy.window.lastEvents: must be an integer ≥ 1',
    ],
    [{ policy: { trigger: { always: true }, strategy: { windows: {} } } }, 'policy.strategy.windows: unknown field'],
    [{ nickname: 'x' }, 'nickname: unknown field'],
  ])('400 for %j, naming the field', async (body, message) => {
    const result = await call('POST', '/v1/sessions', { body })
    expectError(result, 400, 'invalid_request')
    expect(result.body.error.message).toContain(message)
  })
})

describe('GET /v1/sessions/:id', () => {
  it('returns the session with its stats', async () => {
    const id = newSessionId()
    await append(id, [
      { message: { role: 'system', content: 'Be brief.' } },
      user('Hi'),
      { message: { role: 'assistant', content: 'Hello' } },
    ])
    const got = await call('GET', `/v1/sessions/${id}`)
    expect(got.status).toBe(200)
    expect(got.body.version).toBe(3)
    expect(got.body.stats).toMatchObject({ events: 3, viewEvents: 3, turns: 1 })
    expect(got.body.stats.viewTokens).toBeGreaterThan(0)
  })

  it('404 for a session that does not exist', async () => {
    expectError(await call('GET', `/v1/sessions/${newSessionId()}`), 404, 'not_found')
  })

  it('400 for an invalid id in the path', async () => {
    const result = await call('GET', `/v1/sessions/${'y'.repeat(200)}`)
    expectError(result, 400, 'invalid_request')
    expect(result.body.error.message).toMatch(/^path\.id: /)
  })
})

describe('idleTtlSeconds', () => {
  const hour = 3600_000
  const expiry = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body.expiresAt

  it('expires a session that long after its last append; with ttlSeconds too, whichever comes first', async () => {
    const id = newSessionId()
    const start = frozenClock()
    const created = await call('POST', '/v1/sessions', { body: { id, idleTtlSeconds: 3600, ttlSeconds: 5400 } })
    expect(created.body.idleTtlSeconds).toBe(3600)
    expect(await expiry(id)).toBe(iso(start + hour))
    vi.setSystemTime(start + 0.25 * hour)
    await append(id, [user('still here')])
    expect(await expiry(id)).toBe(iso(start + 1.25 * hour))
    // At an hour, an append: the fixed expiry, an hour and a half after creation, comes first.
    vi.setSystemTime(start + hour)
    await append(id, [user('and here')])
    expect(await expiry(id)).toBe(iso(start + 1.5 * hour))
  })

  it('is changed by a patch from the last append (0 or null: off), and counts no imported timestamp', async () => {
    const id = newSessionId()
    const start = frozenClock()
    await call('POST', '/v1/sessions', { body: { id } })
    await append(id, [user('first')])
    // A minute after the append, the patch: the expiry counts from the append.
    vi.setSystemTime(start + 60_000)
    const on = await call('PATCH', `/v1/sessions/${id}`, { body: { idleTtlSeconds: 600 } })
    expect(on.body.idleTtlSeconds).toBe(600)
    expect(on.body.expiresAt).toBe(iso(start + 600_000))
    // Two minutes after it, an import of an event from 2020: an append then, whatever the event's timestamp.
    vi.setSystemTime(start + 120_000)
    const event = {
      id: 'old',
      type: 'MESSAGE',
      timestamp: '2020-01-01T00:00:00.000Z',
      metadata: {},
      message: { role: 'user', content: 'from 2020' },
    }
    await call('POST', `/v1/sessions/${id}/import`, {
      body: JSON.stringify(event),
      headers: { 'Content-Type': 'application/x-ndjson' },
    })
    expect(await expiry(id)).toBe(iso(start + 120_000 + 600_000))
    const off = await call('PATCH', `/v1/sessions/${id}`, { body: { idleTtlSeconds: 0 } })
    expect(off.body).toMatchObject({ idleTtlSeconds: null, expiresAt: null })
  })
})

describe('PATCH /v1/sessions/:id', () => {
  it('changes metadata, policy and ttl; null ttl means never expires', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 60 } })
    const patched = await call('PATCH', `/v1/sessions/${id}`, {
      body: { metadata: { topic: 'x' }, policy: { trigger: { tokenCount: 5000 }, strategy: { window: { tokenBudget: 3000 } } } },
    })
    expect(patched.status).toBe(200)
    expect(patched.body.metadata).toEqual({ topic: 'x' })
    expect(patched.body.policy.trigger).toEqual({ tokenCount: 5000 })
    expect(patched.body.expiresAt).not.toBeNull()
    const never = await call('PATCH', `/v1/sessions/${id}`, { body: { ttlSeconds: null, policy: null } })
    expect(never.body.expiresAt).toBeNull()
    expect(never.body.policy).toBeNull()
    expect((await call('GET', `/v1/sessions/${id}`)).body.expiresAt).toBeNull()
  })

  it('400 for an empty patch, 404 for an absent session', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id } })
    expectError(await call('PATCH', `/v1/sessions/${id}`, { body: {} }), 400, 'invalid_request')
    expectError(await call('PATCH', `/v1/sessions/${newSessionId()}`, { body: { metadata: {} } }), 404, 'not_found')
  })
})

describe('DELETE /v1/sessions/:id', () => {
  it('deletes the session and its log; the id can start over empty', async () => {
    const id = newSessionId()
    await append(id, [user('secret plans')])
    const deleted = await call('DELETE', `/v1/sessions/${id}`)
    expect(deleted.status).toBe(204)
    expect(deleted.text).toBe('')
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
    expectError(await call('GET', `/v1/sessions/${id}/events`), 404, 'not_found')
    expectError(await call('DELETE', `/v1/sessions/${id}`), 404, 'not_found')
    await append(id, [user('fresh start')])
    const log = await call('GET', `/v1/sessions/${id}/events`)
    expect(log.body.events.map((e: { message: { content: string } }) => e.message.content)).toEqual(['fresh start'])
  })
})

describe('GET /v1/sessions', () => {
  it("lists the caller's sessions newest first, paginated, and never another user's", async () => {
    const owner = `lister-${newSessionId()}`
    const ids: string[] = []
    // A second apart on the clock of the code under test: "newest" is then not up to the machine's speed.
    const start = Date.now()
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      for (let i = 0; i < 5; i++) {
        vi.setSystemTime(start + i * 1000)
        const id = newSessionId('list')
        ids.push(id)
        expect((await call('POST', '/v1/sessions', { user: owner, body: { id } })).status).toBe(201)
      }
    } finally {
      vi.useRealTimers()
    }
    await call('POST', '/v1/sessions', { user: `other-${owner}`, body: { id: newSessionId('list') } })

    const first = await call('GET', '/v1/sessions?limit=2', { user: owner })
    expect(first.status).toBe(200)
    expect(first.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[4], ids[3]])
    expect(first.body.nextCursor).toEqual(expect.any(String))
    const second = await call('GET', `/v1/sessions?limit=2&cursor=${first.body.nextCursor}`, { user: owner })
    expect(second.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]])
    const third = await call('GET', `/v1/sessions?limit=2&cursor=${second.body.nextCursor}`, { user: owner })
    expect(third.body.sessions.map((s: { id: string }) => s.id)).toEqual([ids[0]])
    expect(third.body.nextCursor).toBeNull()
    expect(third.body.sessions[0]).toMatchObject({ userId: owner, version: 0 })
  })

  it('drops deleted sessions and lists sessions created by an append', async () => {
    const owner = `lister2-${newSessionId()}`
    const kept = newSessionId('keep')
    const gone = newSessionId('gone')
    await append(kept, [user('hi')], owner)
    await append(gone, [user('hi')], owner)
    await call('DELETE', `/v1/sessions/${gone}`, { user: owner })
    const list = await call('GET', '/v1/sessions', { user: owner })
    expect(list.body.sessions.map((s: { id: string }) => s.id)).toEqual([kept])
  })

  it('clamps large limits and refuses zero, negative and non-numeric ones', async () => {
    const owner = `many-${newSessionId()}`
    for (let i = 0; i < 101; i++) expect((await call('POST', '/v1/sessions', { user: owner })).status).toBe(201)
    const clamped = await call('GET', '/v1/sessions?limit=100000', { user: owner })
    expect(clamped.status).toBe(200)
    expect(clamped.body.sessions).toHaveLength(100)
    expect(clamped.body.nextCursor).toEqual(expect.any(String))
    for (const limit of ['0', '-1', 'ten', '1.5', '']) {
      const result = await call('GET', `/v1/sessions?limit=${limit}`)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toMatch(/^query\.limit: /)
    }
    expectError(await call('GET', '/v1/sessions?cursor=not-a-cursor'), 400, 'invalid_request')
  })
})
