import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterAll, describe, expect, it } from 'vitest'
import { sessionStub } from '../../src/object/address'
import {
  append,
  assistant,
  call,
  expectEveryLogWhole,
  expectWholeLog,
  newSessionId,
  newTag,
  releaseUpstream,
  turn,
  until,
  user,
  wholeLog,
} from '../helpers'
import { expectNothingLost } from '../support/log-checker'
import { passWaiting } from '../support/pass-waiting'
import { attempts, deliveries, newUser, register } from '../support/webhook-receiver'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

describe('the object killed mid-work', () => {
  it('during a background pass waiting for its summary: nothing is written, the session is not left compacting, and a pass runs again', async () => {
    const { id, passTag } = await passWaiting('killed')
    const before = (await call('GET', `/v1/sessions/${id}/view`)).body
    await abortAllDurableObjects()
    await releaseUpstream(passTag) // answered to no one
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before)
    const context = (await call('GET', `/v1/sessions/${id}/context`)).body
    expect(context).toMatchObject({ compacting: false })
    expect((await expectWholeLog(id)).events.every((e) => e.type === 'MESSAGE')).toBe(true)
    // Not stuck: a pass asked for now runs and covers the first turn — the only pass in the log
    // (the one the kill stopped, its summary answered to no one, wrote nothing then or since).
    const pass = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(pass.status, pass.text).toBe(200)
    expect(pass.body.unchanged).toBe(false)
    const { events, covered } = await expectWholeLog(id)
    expect(covered).toEqual(new Set(['u1', 'a1']))
    expect(events.filter((e) => e.type === 'COMPACTION')).toHaveLength(1)
  })

  it('while a webhook delivery is at its receiver: the attempt is never recorded, and the delivery is attempted again once its lease ends, under the same webhook-id', async () => {
    const as = newUser()
    // The receiver leaves the first attempt unanswered for longer than the attempt's timeout.
    const hook = await register(as, 'slow-once', ['turn.completed'])
    const id = newSessionId('killed')
    expect((await turn(id, { content: 'q' }, as)).status).toBe(200)
    await until(async () => (await attempts(hook.name)).length === 1, 'the first attempt')
    await abortAllDurableObjects()
    await until(async () => (await deliveries(as, hook.id, 'delivered')).length === 1, 'the delivery after the lease')
    const all = await attempts(hook.name)
    expect(all.length).toBeGreaterThanOrEqual(2)
    expect(new Set(all.map((a) => a.headers['webhook-id'])).size).toBe(1)
    expect(all.at(-1)!.answered).toBe(200)
    expect(JSON.parse(all.at(-1)!.body)).toMatchObject({ type: 'turn.completed' })
    // The object died with the first attempt in flight: only the retry is on the record (a timed-out attempt would be too).
    expect((await deliveries(as, hook.id))[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 })
    expect(expectNothingLost(await wholeLog(id, as)).view.map((e: any) => e.message.content)).toEqual(['q', 'Echo: q'])
  })

  it('right after a turn is written, wherever its notice is (the session’s outbox, the hand-over, the user’s deliveries): each notice is delivered, all its attempts under one webhook-id', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['turn.completed'])
    const id = newSessionId('killed')
    for (const content of ['first', 'second', 'third']) {
      expect((await turn(id, { content }, as)).status).toBe(200)
      await abortAllDurableObjects()
    }
    await until(async () => (await deliveries(as, hook.id, 'delivered')).length === 3, 'three deliveries')
    const all = await attempts(hook.name)
    // One delivery per turn: no notice fanned out twice under a second webhook-id.
    const byId = new Map(all.map((a) => [a.headers['webhook-id'], JSON.parse(a.body)]))
    expect(byId.size).toBe(3)
    expect([...byId.values()].every((body) => body.type === 'turn.completed' && body.data.sessionId === id)).toBe(true)
    expect(expectNothingLost(await wholeLog(id, as)).view).toHaveLength(6)
  })
})

describe('a write that fails midway', () => {
  it('a rewind whose write fails after folding the pins over its REWIND: nothing is rewound, and what the write read of its REWIND is forgotten', async () => {
    const id = newSessionId()
    const [u1, , u2] = (await append(id, [user('u1'), assistant('a1'), user('u2'), assistant('a2')])).events
    // A pin: the rewind's write then folds the pins again over its new lineage, reading its own REWIND.
    expect((await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: [u1!.id] } })).status).toBe(200)
    const stub = sessionStub(env, 'alice', id)
    const failed = await runInDurableObject(stub, async (instance, state) => {
      const sql = state.storage.sql
      const exec = sql.exec
      const original = exec.bind(sql)
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        if (query.startsWith('INSERT OR REPLACE INTO session')) throw new Error('injected: the session row is not written')
        return original(query, ...bindings)
      }) as typeof sql.exec
      try {
        return await instance.rewind({ to: u2!.id, position: 'before' }).then(String, String)
      } finally {
        sql.exec = exec
      }
    })
    expect(failed).toContain('injected')
    // The next event takes the seq the failed REWIND had.
    await append(id, [user('u3')])
    const page = await runInDurableObject(stub, (instance) => instance.readLineage({ order: 'asc', fromId: u2!.id, limit: 10 }))
    if (!page.ok) throw new Error(JSON.stringify(page.error))
    expect(page.value?.events.map((event) => event.message.content)).toEqual(['u2', 'a2', 'u3'])
    // The log holds no REWIND, and its view is every message.
    const log = expectNothingLost(await wholeLog(id))
    expect(log.view.map((e: any) => e.message.content)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3'])
  })
})
