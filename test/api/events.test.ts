import { describe, expect, it } from 'vitest'
import { SIZE_LIMITS } from '../../src/contract/limits'
import { append, assistant, call, expectError, newSessionId, user } from '../helpers'

const events = (sessionId: string, query = '') => call('GET', `/v1/sessions/${sessionId}/events${query}`)

describe('POST /v1/sessions/:id/events', () => {
  it('appends in order, assigns seq, ids, timestamps and token estimates, and creates the session', async () => {
    const id = newSessionId()
    const result = await call('POST', `/v1/sessions/${id}/events`, {
      body: {
        events: [user('Hello there', 'u1'), { ...assistant('Hi!'), metadata: { model: 'x' }, timestamp: '2026-01-02T03:04:05Z' }],
      },
    })
    expect(result.status).toBe(201)
    expect(result.body.version).toBe(2)
    const [first, second] = result.body.events
    expect(first).toMatchObject({
      id: 'u1',
      seq: 1,
      type: 'MESSAGE',
      synthetic: false,
      metadata: {},
      message: { role: 'user', content: 'Hello there' },
    })
    expect(first.tokens).toBeGreaterThan(0)
    expect(second).toMatchObject({ seq: 2, metadata: { model: 'x' }, timestamp: '2026-01-02T03:04:05.000Z' })
    expect(second.id).toMatch(/^evt_[0-9a-f]{32}$/)
    expect((await call('GET', `/v1/sessions/${id}`)).body.userId).toBe('alice')
  })

  it('stores tool calls and tool responses and returns them as sent', async () => {
    const id = newSessionId()
    const call1 = {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    }
    const result1 = { role: 'tool', content: null, toolResponses: [{ id: 'call_1', name: 'get_weather', data: '{"c":18}' }] }
    await append(id, [user('weather?'), { message: call1 }, { message: result1 }])
    const log = await events(id)
    expect(log.body.events.map((e: { message: unknown }) => e.message)).toEqual([
      { role: 'user', content: 'weather?' },
      call1,
      result1,
    ])
  })

  it('is idempotent by id: a retry returns the stored events with 200 and writes nothing', async () => {
    const id = newSessionId()
    const body = { events: [user('one', 'e1'), assistant('two', 'e2')] }
    const first = await call('POST', `/v1/sessions/${id}/events`, { body })
    const retry = await call('POST', `/v1/sessions/${id}/events`, { body: { ...body, expectedVersion: 0 } })
    expect(retry.status).toBe(200)
    expect(retry.body).toEqual(first.body)
    expect((await events(id)).body.events).toHaveLength(2)
  })

  it('writes only the new events of a partly retried append, in request order', async () => {
    const id = newSessionId()
    await append(id, [user('one', 'e1')])
    const result = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [user('one', 'e1'), assistant('two', 'e2')] },
    })
    expect(result.status).toBe(201)
    expect(result.body.events.map((e: { id: string; seq: number }) => [e.id, e.seq])).toEqual([
      ['e1', 1],
      ['e2', 2],
    ])
  })

  it('409 id_conflict when an id is stored with a different message, writing nothing', async () => {
    const id = newSessionId()
    await append(id, [user('one', 'e1')])
    const result = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [assistant('new', 'e9'), user('changed', 'e1')] },
    })
    expectError(result, 409, 'id_conflict')
    expect((await events(id)).body.events).toHaveLength(1)
  })

  it('checks expectedVersion only when something new is written', async () => {
    const id = newSessionId()
    await append(id, [user('one', 'e1')])
    const stale = await call('POST', `/v1/sessions/${id}/events`, { body: { events: [assistant('two')], expectedVersion: 0 } })
    expectError(stale, 409, 'version_conflict')
    expect(stale.body.error.message).toContain('version 1')
    const ok = await call('POST', `/v1/sessions/${id}/events`, { body: { events: [assistant('two')], expectedVersion: 1 } })
    expect(ok.status).toBe(201)
    expect((await events(id)).body.events).toHaveLength(2)
  })

  it('appends 1,000 events in one request and reads a view that stays correct', async () => {
    const id = newSessionId()
    const batch = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? user(`question ${i}`) : assistant(`answer ${i}`)))
    const result = await call('POST', `/v1/sessions/${id}/events`, { body: { events: batch } })
    expect(result.status).toBe(201)
    expect(result.body.version).toBe(1000)
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.events).toHaveLength(1000)
    expect(view.body.turns).toBe(500)
    expect(view.body.events.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    expect(view.body.tokens).toBe(result.body.events.reduce((sum: number, e: { tokens: number }) => sum + e.tokens, 0))
    const more = await append(id, [user('one more')])
    expect(more.version).toBe(1001)
    expect((await call('GET', `/v1/sessions/${id}/view`)).body.events).toHaveLength(1001)
  })

  it('accepts content at the size limit and refuses one byte more with 413, writing nothing', async () => {
    const id = newSessionId()
    const limit = SIZE_LIMITS.eventContentBytes
    // Multi-byte text counts in UTF-8 bytes: 'é' is 2 bytes.
    const atLimit = 'é'.repeat(limit / 2)
    const stored = await append(id, [user(atLimit, 'big')])
    expect(stored.version).toBe(1)
    const log = await events(id)
    expect(log.body.events[0].message.content).toBe(atLimit)
    const over = await call('POST', `/v1/sessions/${id}/events`, { body: { events: [user('fine'), user(`${atLimit}x`)] } })
    expectError(over, 413, 'payload_too_large')
    expect((await events(id)).body.events).toHaveLength(1)
  })

  it('counts tool arguments and data towards the size limit', async () => {
    const id = newSessionId()
    const half = 'a'.repeat(SIZE_LIMITS.eventContentBytes / 2)
    const message = { role: 'tool', content: half, toolResponses: [{ id: 'c', name: 'f', data: `${half}b` }] }
    expectError(await call('POST', `/v1/sessions/${id}/events`, { body: { events: [{ message }] } }), 413, 'payload_too_large')
  })

  it.each([
    [{ events: [] }, 'events:'],
    [{ events: [{ message: { role: 'robot', content: 'x' } }] }, 'events[0].message.role:'],
    [{ events: [{ message: { role: 'user', content: null } }] }, 'events[0].message.content: a user message needs text content'],
    [
      { events: [{ message: { role: 'user', content: 'x', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] } }] },
      'events[0].message.toolCalls: only assistant messages carry tool calls',
    ],
    [
      { events: [{ message: { role: 'tool', content: 'x' } }] },
      'events[0].message.toolResponses: a tool message needs at least one tool response',
    ],
    [
      { events: [{ message: { role: 'assistant', content: null } }] },
      'events[0].message.content: an assistant message needs content or tool calls',
    ],
    [{ events: [{ id: 'a b', message: { role: 'user', content: 'x' } }] }, 'events[0].id: must be 1–128 characters'],
    [{ events: [user('x', 'd'), user('y', 'd')] }, 'events[1].id: "d" is also the id of events[0]'],
    [
      { events: [{ type: 'COMPACTION', message: { role: 'user', content: 'x' } }] },
      'events[0].type: clients can only write MESSAGE events',
    ],
    [
      { events: [{ synthetic: true, message: { role: 'user', content: 'x' } }] },
      'events[0].synthetic: clients cannot write synthetic events',
    ],
    [{ events: [{ seq: 5, message: { role: 'user', content: 'x' } }] }, 'events[0].seq: unknown field'],
    [{ events: [{ message: { role: 'user', content: 'x' }, timestamp: 'yesterday' }] }, 'events[0].timestamp:'],
    [{ events: [user('x')], expectedVersion: -1 }, 'expectedVersion:'],
    [{ events: Array.from({ length: 1001 }, () => user('x')) }, 'events:'],
    [{ message: { role: 'user', content: 'x' } }, 'events: is required'],
  ])('400 for %#, naming the field, writing nothing', async (body, message) => {
    const id = newSessionId()
    const result = await call('POST', `/v1/sessions/${id}/events`, { body })
    expectError(result, 400, 'invalid_request')
    expect(result.body.error.message).toContain(message)
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
  })
})

describe('GET /v1/sessions/:id/events', () => {
  it('pages through the whole log, COMPACTION events included', async () => {
    const id = newSessionId()
    await append(id, [user('u1'), assistant('a1'), user('u2'), assistant('a2'), user('u3')])
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
    const page1 = await events(id, '?limit=4')
    expect(page1.body.events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4])
    expect(page1.body.nextAfter).toBe(4)
    expect(page1.body.version).toBe(6)
    const page2 = await events(id, `?after=${page1.body.nextAfter}&limit=4`)
    expect(page2.body.events.map((e: { type: string }) => e.type)).toEqual(['MESSAGE', 'COMPACTION'])
    expect(page2.body.events[1]).toMatchObject({
      tokens: 0,
      synthetic: false,
      boundary: { preserved: [expect.any(String)], coveredEventCount: 4 },
    })
    expect(page2.body.events[1].message).toBeUndefined()
    expect(page2.body.nextAfter).toBeNull()
  })

  it('ends a page of large events at about 4 MiB of JSON: fewer than the limit, nextAfter going on', async () => {
    const id = newSessionId()
    const big = (i: number) => user(`${i}`.repeat(1_000_000), `big-${i}`)
    for (let i = 0; i < 6; i += 3) await append(id, [big(i), big(i + 1), big(i + 2)])
    const first = await events(id, '?limit=100')
    // The fifth 1 MB event brings the page past 4 MiB (4,194,304 bytes): it ends there.
    expect(first.body.events.map((e: { id: string }) => e.id)).toEqual(['big-0', 'big-1', 'big-2', 'big-3', 'big-4'])
    expect(first.body.nextAfter).toBe(5)
    const rest = await events(id, '?after=5&limit=100')
    expect(rest.body.events.map((e: { id: string }) => e.id)).toEqual(['big-5'])
    expect(rest.body.events[0].message.content).toBe('5'.repeat(1_000_000))
    expect(rest.body.nextAfter).toBeNull()
  })

  it('refuses bad paging values and clamps large limits', async () => {
    const id = newSessionId()
    await append(
      id,
      Array.from({ length: 1000 }, (_, i) => user(`m${i}`)),
    )
    await append(id, [user('the 1001st')])
    const clamped = await events(id, '?limit=5000')
    expect(clamped.status).toBe(200)
    expect(clamped.body.events).toHaveLength(1000)
    expect(clamped.body.nextAfter).toBe(1000)
    for (const query of ['?limit=0', '?limit=-3', '?after=-1', '?after=x', '?limit=2.5']) {
      expectError(await events(id, query), 400, 'invalid_request')
    }
  })
})
