import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  append,
  call,
  expectError,
  newSessionId,
  newTag,
  releaseUpstream,
  turn,
  untilUpstreamReceived,
  upstreamRequests,
  user,
  wholeLog,
} from '../../test/helpers'
import type { AppendInput } from '../contract/schemas'
import { defaultEstimator, project, statsOf } from '../core'
import { SessionStorage } from '../store/session-storage'
import { sessionDirectory, sessionStub, userIndexStub } from './address'
import type { SessionObject } from './session-object'

const stubOf = (id: string, userId = 'alice') => sessionStub(env, userId, id)
/** The view as `GET /view` answers it, read from the object itself. */
const viewOf = async (object: SessionObject) => {
  const view = await object.readView()
  if (!view.ok) throw new Error(JSON.stringify(view.error))
  return JSON.parse(await new Response(view.value).text()) as unknown
}

describe('appends are all or nothing', () => {
  it('a row failing mid-transaction leaves neither rows nor the object’s cached row, counters and view changed', async () => {
    const id = newSessionId()
    await append(id, [user('first', 'e1')])
    const before = await call('GET', `/v1/sessions/${id}/view`)
    const address = { userId: 'alice', sessionId: id }
    const input = (content: string, eventId: string): AppendInput => ({ id: eventId, message: { role: 'user', content } })
    await runInDurableObject(stubOf(id), async (instance: SessionObject, state) => {
      const view = await viewOf(instance)
      const session = await instance.get()
      // The object's own append, its second event's row failing in storage.
      const sql = state.storage.sql
      const exec = sql.exec
      let rows = 0
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        if (query.startsWith('INSERT INTO events') && ++rows === 2) throw new Error('injected: the second row is not written')
        return exec.call(sql, query, ...bindings)
      }) as typeof sql.exec
      try {
        const failed = await instance.append(address, [input('second', 'e2'), input('third', 'e3')]).then(String, String)
        expect(failed).toContain('injected')
      } finally {
        sql.exec = exec
      }
      expect(rows).toBe(2)
      expect(sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n).toBe(1)
      expect(sql.exec<{ version: number }>('SELECT version FROM session').one().version).toBe(1)
      expect(await instance.get()).toEqual(session)
      expect(await viewOf(instance)).toEqual(view)
      // A stale version is refused before anything is written.
      expect(await instance.append(address, [input('third', 'e3')], 0)).toMatchObject({
        ok: false,
        error: { code: 'version_conflict' },
      })
    })
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before.body)
    expect((await append(id, [user('second', 'e2')])).version).toBe(2)
  })
})

describe('reads', () => {
  it('of an absent session leave no storage behind', async () => {
    const id = newSessionId('probe')
    expectError(await call('GET', `/v1/sessions/${id}/view`), 404, 'not_found')
    expectError(await call('POST', `/v1/sessions/${id}/compact`, { body: {} }), 404, 'not_found')
    const tables = await runInDurableObject(stubOf(id), async (_instance, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'")
        .toArray(),
    )
    expect(tables).toEqual([])
  })
})

describe('large events', () => {
  it('stores content beyond one SQLite value in parts and returns it byte for byte', async () => {
    const id = newSessionId()
    // Control characters are escaped to six bytes in JSON; astral characters straddle part edges.
    const content = `\u0001"\\𝒜é ${'x'.repeat(97)}`.repeat(10_000).slice(0, 1_000_000)
    await append(id, [user(content, 'big')])
    const parts = await runInDurableObject(
      stubOf(id),
      async (_instance, state) => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM event_parts').one().n,
    )
    expect(parts).toBeGreaterThan(1)
    const log = await wholeLog(id)
    expect(log[0]!.type === 'MESSAGE' && log[0]!.message.content).toBe(content)
    await evictDurableObject(stubOf(id))
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.events[0].message.content).toBe(content)
  })
})

describe('expiry', () => {
  afterEach(() => vi.useRealTimers())

  it('an expired session is absent at once; the alarm wipes its storage and index entry, twice safely', async () => {
    const owner = `expiry-${newSessionId()}`
    const id = newSessionId()
    await call('POST', '/v1/sessions', { user: owner, body: { id, ttlSeconds: 3600 } })
    await append(id, [user('soon gone')], owner)
    expect((await call('GET', '/v1/sessions', { user: owner })).body.sessions).toHaveLength(1)
    // Two hours on (for the code under test; workerd's own alarm clock stays real).
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 2 * 3600_000)
    // Listing stops showing it as soon as it has expired, before any cleanup.
    expect((await call('GET', '/v1/sessions', { user: owner })).body.sessions).toHaveLength(0)

    expect(await runDurableObjectAlarm(stubOf(id, owner))).toBe(true)
    const tables = await runInDurableObject(stubOf(id, owner), async (instance: SessionObject, state) => {
      await instance.alarm() // a second run finds nothing to do
      return state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'")
        .toArray()
    })
    expect(tables).toEqual([])
    expect(await runDurableObjectAlarm(stubOf(id, owner))).toBe(false)
    const entries = await userIndexStub(env, owner).page(10, null, '1970-01-01T00:00:00.000Z')
    expect(entries.entries).toEqual([])
    expectError(await call('GET', `/v1/sessions/${id}`, { user: owner }), 404, 'not_found')
    vi.useRealTimers()
  })

  it('appending to an expired id starts a new empty session: old data never comes back', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 1 } })
    await append(id, [user('old', 'e1')])
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 2000) // past its expiry (for the code under test)
    expectError(await call('GET', `/v1/sessions/${id}/view`), 404, 'not_found')
    const fresh = await append(id, [user('new', 'e1')])
    expect(fresh.version).toBe(1)
    const log = await wholeLog(id)
    expect(log.map((e) => e.type === 'MESSAGE' && e.message.content)).toEqual(['new'])
    expect((await call('GET', `/v1/sessions/${id}`)).body.expiresAt).toBeNull()
  })

  it('a session that expires while a turn waits for the model is not written again: the turn is a 404, nothing comes back', async () => {
    const [id, tag] = [newSessionId(), newTag()]
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 3600 } })
    await append(id, [user('before')])
    const turned = turn(id, { content: 'while it ends', model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag, 1)
    // Two hours on (for the code under test), while the turn's model call is held.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 2 * 3600_000)
    await releaseUpstream(tag)
    expectError(await turned, 404, 'not_found')
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
    expectError(await call('GET', `/v1/sessions/${id}/events`), 404, 'not_found')
  })

  it('a session deleted while a turn waits for the model is not created again by the turn', async () => {
    const [id, tag] = [newSessionId(), newTag()]
    await append(id, [user('before')])
    const turned = turn(id, { content: 'while it is deleted', model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag, 1)
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    await releaseUpstream(tag)
    expectError(await turned, 404, 'not_found')
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
    // The id is free again: a new session starts empty.
    expect((await append(id, [user('after')])).version).toBe(1)
  })

  it('a session created without idleTtlSeconds takes the deployment’s; one created with its own keeps it', async () => {
    const [plain, own] = [newSessionId(), newSessionId()]
    for (const [id, input, expected] of [
      [plain, {}, 600],
      [own, { idleTtlSeconds: 0 }, null],
    ] as const)
      await runInDurableObject(stubOf(id), async (_instance, state) => {
        const stored = new SessionStorage(state.storage, sessionDirectory(env), defaultEstimator, () => 600)
        const record = await stored.create({ userId: 'alice', sessionId: id }, input)
        expect(record.idleTtlSeconds).toBe(expected)
        expect(record.expiresAt === null).toBe(expected === null)
      })
  })

  it('an alarm that fires early reschedules itself instead of deleting', async () => {
    const id = newSessionId()
    const created = await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 3600 } })
    await runInDurableObject(stubOf(id), async (instance: SessionObject, state) => {
      await instance.alarm()
      // Set again for the session's expiry, an hour on.
      expect(await state.storage.getAlarm()).toBe(Date.parse(created.body.expiresAt))
    })
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(200)
  })
})

describe('the cached view', () => {
  it('always equals the projection of the whole log, with counters to match, before and after eviction', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('append' as const),
        roles: fc.array(fc.constantFrom('user', 'assistant', 'system'), { minLength: 1, maxLength: 5 }),
      }),
      fc.record({
        kind: fc.constant('compact' as const),
        window: fc.oneof(
          fc.integer({ min: 1, max: 6 }).map((n) => ({ lastEvents: n })),
          fc.integer({ min: 1, max: 3 }).map((n) => ({ lastTurns: n })),
          fc.integer({ min: 5, max: 80 }).map((n) => ({ tokenBudget: n })),
        ),
      }),
      fc.constant({ kind: 'evict' as const }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const id = newSessionId('cache')
        let n = 0
        for (const o of ops) {
          if (o.kind === 'append')
            await append(
              id,
              o.roles.map((role) => ({ message: { role, content: `${role} ${++n}` } })),
            )
          else if (o.kind === 'compact')
            await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: o.window } } })
          else await evictDurableObject(stubOf(id)).catch(() => undefined) // not running yet: nothing to evict
          const session = await call('GET', `/v1/sessions/${id}`)
          if (session.status === 404) continue // nothing appended yet
          const view = (await call('GET', `/v1/sessions/${id}/view`)).body
          const expected = project(await wholeLog(id))
          expect(view.events).toEqual(expected)
          const stats = statsOf(expected)
          expect(session.body.stats).toMatchObject({
            viewEvents: stats.viewEvents,
            viewTokens: stats.viewTokens,
            turns: stats.turns,
          })
          expect(view.tokens).toBe(stats.viewTokens)
        }
      }),
      { numRuns: 15 },
    )
  })
})

describe('the turn step record', () => {
  const upstreamCalls = async (tag: string) => (await upstreamRequests(tag)).length

  it('is kept on the step’s own rows, and its retry is answered from them without calling the model', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await call('POST', `/v1/sessions/${id}/turns`, { body: { id: 'u1', content: 'hello', model: `echo#${tag}` } })
    expect(first.status).toBe(200)
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      const steps = state.storage.sql
        .exec<{ id: string; step: string | null }>('SELECT id, step FROM events ORDER BY seq')
        .toArray()
      expect(steps.map((row) => row.step !== null)).toEqual([true, true]) // the user event names the reply; the reply holds the record
    })
    const retried = await call('POST', `/v1/sessions/${id}/turns`, { body: { id: 'u1', content: 'hello', model: `echo#${tag}` } })
    expect(retried.body.reply).toEqual(first.body.reply)
    expect(await upstreamCalls(tag)).toBe(1)
  })
})
