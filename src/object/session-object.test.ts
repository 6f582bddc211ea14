import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { append, call, expectError, newSessionId, newTag, upstreamRequests, user, wholeLog } from '../../test/helpers'
import { defaultEstimator, newMessageEvent, project, statsOf, VersionConflictError } from '../core'
import { StoredSession } from '../store/session/stored-session'
import { sessionDirectory, sessionStub, userIndexStub } from './address'
import type { SessionObject } from './session-object'

const stubOf = (id: string, userId = 'alice') => sessionStub(env, userId, id)
/** The view as `GET /view` answers it, read inside the object. */
const viewOf = async (stored: StoredSession) =>
  JSON.parse([...stored.answers.viewOf(await stored.existing(), 'events')].join('')) as unknown
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('appends are all or nothing', () => {
  it('a row failing mid-transaction leaves neither rows nor counters nor cached view changed', async () => {
    const id = newSessionId()
    await append(id, [user('first', 'e1')])
    const before = await call('GET', `/v1/sessions/${id}/view`)
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      // The session's storage as the object keeps it, written through the port compaction uses.
      const stored = new StoredSession(state.storage, sessionDirectory(env), defaultEstimator)
      const event = (eventId: string) =>
        newMessageEvent({ id: eventId, message: { role: 'user', content: eventId }, timestamp: 't' }, defaultEstimator)
      const view = await viewOf(stored)
      // The second row repeats the first one's id: the UNIQUE constraint fails on it.
      await expect(stored.append([event('e2'), event('e2')], 1)).rejects.toThrow()
      expect(state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM events').one().n).toBe(1)
      expect(state.storage.sql.exec<{ version: number }>('SELECT version FROM session').one().version).toBe(1)
      expect(await viewOf(stored)).toEqual(view)
      // A stale version is refused before anything is written.
      await expect(stored.append([event('e3')], 0)).rejects.toThrow(VersionConflictError)
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
    await sleep(1100)
    expectError(await call('GET', `/v1/sessions/${id}/view`), 404, 'not_found')
    const fresh = await append(id, [user('new', 'e1')])
    expect(fresh.version).toBe(1)
    const log = await wholeLog(id)
    expect(log.map((e) => e.type === 'MESSAGE' && e.message.content)).toEqual(['new'])
    expect((await call('GET', `/v1/sessions/${id}`)).body.expiresAt).toBeNull()
  })

  it('an alarm that fires early reschedules itself instead of deleting', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 3600 } })
    await runInDurableObject(stubOf(id), async (instance: SessionObject, state) => {
      await instance.alarm()
      expect(await state.storage.getAlarm()).toBeGreaterThan(Date.now())
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

describe('the tool id record (schema v3)', () => {
  it('is filled from the log of a session stored before it, bodies in parts included', async () => {
    const id = newSessionId()
    const big = 'é'.repeat(500_000) // two stored parts (1 MB of UTF-8)
    await append(id, [
      user('go'),
      { message: { role: 'assistant', content: null, toolCalls: [{ id: 'a1', name: 'f', arguments: big.slice(0, 1000) }] } },
      {
        message: {
          role: 'tool',
          content: null,
          toolResponses: [
            { id: 'a1', name: 'f', data: big },
            { id: 'stray', name: 'f', data: '1' },
          ],
        },
      },
      { message: { role: 'assistant', content: null, toolCalls: [{ id: 'b2', name: 'f', arguments: '{}' }] } },
    ])
    const ids = (state: DurableObjectState) =>
      state.storage.sql
        .exec<{ id: string }>('SELECT id FROM tool_ids ORDER BY id')
        .toArray()
        .map((row) => row.id)
    // As a session of schema v2 was: no record of tool ids.
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      expect(ids(state)).toEqual(['a1', 'b2', 'stray'])
      expect(state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM event_parts').one().n).toBeGreaterThan(0)
      // Everything after v2 undone.
      state.storage.sql.exec('DROP TABLE tool_ids')
      state.storage.sql.exec('DROP TABLE idempotency')
      state.storage.sql.exec('DROP INDEX turns_by_reply')
      state.storage.sql.exec('DROP INDEX events_compactions')
      state.storage.sql.exec('DROP TABLE search')
      state.storage.sql.exec('DROP TABLE search_backfill')
      for (const column of ['ratio', 'samples', 'last_usage', 'compactions'])
        state.storage.sql.exec(`ALTER TABLE session DROP COLUMN ${column}`)
      state.storage.sql.exec('ALTER TABLE events DROP COLUMN step')
      state.storage.sql.exec('UPDATE schema_version SET version = 2')
    })
    await evictDurableObject(stubOf(id))
    await call('GET', `/v1/sessions/${id}`)
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      expect(ids(state)).toEqual(['a1', 'b2', 'stray'])
      expect(state.storage.sql.exec<{ version: number }>('SELECT version FROM schema_version').one().version).toBe(9)
    })
  })
})

describe('the turn step record (schema v8)', () => {
  const upstreamCalls = async (tag: string) => (await upstreamRequests(tag)).length

  it('is kept on the step’s own rows: a turn writes nothing to the turns table, and its retry is answered from them', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await call('POST', `/v1/sessions/${id}/turns`, { body: { id: 'u1', content: 'hello', model: `echo#${tag}` } })
    expect(first.status).toBe(200)
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      expect(state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM turns').one().n).toBe(0)
      const steps = state.storage.sql
        .exec<{ id: string; step: string | null }>('SELECT id, step FROM events ORDER BY seq')
        .toArray()
      expect(steps.map((row) => row.step !== null)).toEqual([true, true]) // the user event names the reply; the reply holds the record
    })
    const retried = await call('POST', `/v1/sessions/${id}/turns`, { body: { id: 'u1', content: 'hello', model: `echo#${tag}` } })
    expect(retried.body.reply).toEqual(first.body.reply)
    expect(await upstreamCalls(tag)).toBe(1)
  })

  it('still answers retries of steps recorded in the turns table before it, through /turns and the front door', async () => {
    const id = newSessionId()
    const tag = newTag()
    const messages = [{ role: 'user', content: 'before v8' }]
    const headers = { 'X-Session-Id': id }
    const first = await call('POST', '/v1/chat/completions', { body: { model: `echo#${tag}`, messages }, headers })
    const turn = await call('POST', `/v1/sessions/${id}/turns`, {
      body: { id: 'u2', content: 'also before', model: `echo#${tag}` },
    })
    // As a session written before v8 keeps them: the records in `turns`, no step columns.
    await runInDurableObject(stubOf(id), async (_instance, state) => {
      const sql = state.storage.sql
      const rows = sql
        .exec<{ seq: number; id: string; step: string }>('SELECT seq, id, step FROM events WHERE step IS NOT NULL')
        .toArray()
      for (const row of rows) {
        const step = JSON.parse(row.step) as { key?: number; first: number; last: number; usage: unknown }
        if (step.key === undefined) continue
        const key = rows.find((r) => r.seq === step.key)!
        sql.exec(
          'INSERT INTO turns (id, first_seq, last_seq, user_seq, reply_seq, usage) VALUES (?, ?, ?, ?, ?, ?)',
          key.id,
          step.first,
          step.last,
          step.key,
          row.seq,
          JSON.stringify(step.usage),
        )
      }
      sql.exec('UPDATE events SET step = NULL')
    })
    await evictDurableObject(stubOf(id))
    const retriedTurn = await call('POST', `/v1/sessions/${id}/turns`, {
      body: { id: 'u2', content: 'also before', model: `echo#${tag}` },
    })
    expect(retriedTurn.body.reply).toEqual(turn.body.reply)
    const resent = await call('POST', '/v1/chat/completions', {
      body: {
        model: `echo#${tag}`,
        messages: [
          ...messages,
          { role: 'assistant', content: first.body.choices[0].message.content },
          { role: 'user', content: 'also before' },
        ],
      },
      headers,
    })
    expect(resent.body.choices[0].message.content).toBe(turn.body.reply.message.content)
    expect(await upstreamCalls(tag)).toBe(2) // both answered from storage
  })
})
