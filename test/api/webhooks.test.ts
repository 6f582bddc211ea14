import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { Webhook } from 'standardwebhooks'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sessionStub, userIndexStub } from '../../src/object/address'
import type { sessionClient } from '../../src/object/session-client'
import { append, assistant, call, newSessionId, turn, until, user } from '../helpers'
import { type Attempt, attempts, bodies, deliveries, newUser, register } from '../support/webhook-receiver'

describe('webhook endpoints', () => {
  it('are created with a whsec_ secret shown once, listed, read, changed and deleted, per user', async () => {
    const as = newUser()
    const created = await register(as, 'ok', ['turn.completed'])
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(created).toMatchObject({ events: ['turn.completed'], disabled: false, description: null })
    const listed = await call('GET', '/v1/webhooks', { user: as })
    expect(listed.body.webhooks).toHaveLength(1)
    expect(listed.body.webhooks[0]).not.toHaveProperty('secret')
    expect((await call('GET', `/v1/webhooks/${created.id}`, { user: as })).body).not.toHaveProperty('secret')
    // Another user sees none of them.
    expect((await call('GET', '/v1/webhooks', { user: newUser() })).body.webhooks).toEqual([])
    expect((await call('GET', `/v1/webhooks/${created.id}`, { user: newUser() })).status).toBe(404)
    const patched = await call('PATCH', `/v1/webhooks/${created.id}`, {
      user: as,
      body: { events: ['session.compacted'], description: 'compactions' },
    })
    expect(patched.body).toMatchObject({ events: ['session.compacted'], description: 'compactions' })
    expect((await call('DELETE', `/v1/webhooks/${created.id}`, { user: as })).status).toBe(204)
    expect((await call('GET', `/v1/webhooks/${created.id}`, { user: as })).status).toBe(404)
  })

  it('refuse a URL that is not https (or http to this machine), an unknown type, and unknown fields, naming the field', async () => {
    const as = newUser()
    const bad = [
      [{ url: 'http://example.com/hook', events: ['*'] }, 'url'],
      [{ url: 'ftp://127.0.0.1/hook', events: ['*'] }, 'url'],
      [{ url: 'https://user:pass@example.com/hook', events: ['*'] }, 'url'],
      [{ url: 'https://example.com/hook', events: ['turn.done'] }, 'events'],
      [{ url: 'https://example.com/hook', events: [] }, 'events'],
      [{ url: 'https://example.com/hook', events: ['*'], secret: 'mine' }, 'secret'],
    ] as const
    for (const [body, field] of bad) {
      const answer = await call('POST', '/v1/webhooks', { user: as, body })
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body.error.message).toContain(field)
    }
    expect((await call('GET', '/v1/webhooks', { user: as })).body.webhooks).toEqual([])
    expect((await call('GET', '/v1/webhooks/nope', { user: as })).status).toBe(400)
  })
})

describe('webhook deliveries', () => {
  it('sends a turn.completed signed per Standard Webhooks, thin, to an endpoint subscribed to it', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['turn.completed'])
    const id = newSessionId('wh')
    const answered = await turn(id, { content: 'a secret question' }, as)
    expect(answered.status).toBe(200)
    await until(async () => (await attempts(hook.name)).length > 0, 'the delivery')
    const [attempt] = await attempts(hook.name)
    // The real library a receiver uses verifies it with the secret.
    const verified = new Webhook(hook.secret).verify(attempt!.body, attempt!.headers) as any
    expect(verified.type).toBe('turn.completed')
    expect(verified.data).toMatchObject({ sessionId: id, replyId: answered.body.reply.id })
    expect(verified.data.usage.promptTokens).toBe(answered.body.usage.promptTokens)
    expect(attempt!.body).not.toContain('secret question')
    expect(() => new Webhook(`whsec_${btoa('another key, not the one')}`).verify(attempt!.body, attempt!.headers)).toThrow()
    expect(attempt!.headers['webhook-id']).toMatch(/^msg_/)
    const [delivery] = await deliveries(as, hook.id)
    expect(delivery).toMatchObject({ type: 'turn.completed', status: 'delivered', attempts: 1, lastStatus: 200 })
  })

  it('sends only the types an endpoint subscribes to, and every type to "*"', async () => {
    const as = newUser()
    const compactions = await register(as, 'ok', ['session.compacted'])
    const all = await register(as, 'ok', ['*'], 'all')
    const id = newSessionId('wh')
    await append(id, [user('q1'), assistant('a1'), user('q2'), assistant('a2')], as)
    expect(
      (await call('POST', `/v1/sessions/${id}/compact`, { user: as, body: { strategy: { window: { lastTurns: 1 } } } })).status,
    ).toBe(200)
    expect((await turn(id, { content: 'q3' }, as)).status).toBe(200)
    await until(async () => (await bodies(all.name)).length >= 2, 'both deliveries to "*"')
    expect((await bodies(all.name)).map((body) => body.type).sort()).toEqual(['session.compacted', 'turn.completed'])
    await until(async () => (await bodies(compactions.name)).length >= 1, 'the compaction delivery')
    expect((await bodies(compactions.name)).map((body) => body.type)).toEqual(['session.compacted'])
  })
})

describe('webhook retries', () => {
  afterEach(() => vi.useRealTimers())

  /**
   * An endpoint answering as `mode` says, and the first attempt to deliver it a turn.completed,
   * made and recorded at `start`. Date, the service's clock, is frozen at a whole second an hour
   * ahead, so neither the session's hand-over nor the user's deliveries go by an alarm of their
   * own: the test runs each alarm, at the time it sets (`alarmAt`: that many ms after `start`).
   */
  async function firstAttempt(mode: string) {
    const as = newUser()
    const hook = await register(as, mode, ['turn.completed'])
    const start = Math.ceil(Date.now() / 1000) * 1000 + 3600_000
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(start)
    const id = newSessionId('wh')
    expect((await turn(id, { content: 'q' }, as)).status).toBe(200)
    // The session hands its notice over to the user's index, whose alarm sends the delivery.
    expect(await runDurableObjectAlarm(sessionStub(env, as, id))).toBe(true)
    expect(await runDurableObjectAlarm(userIndexStub(env, as))).toBe(true)
    await until(async () => (await deliveries(as, hook.id))[0]?.attempts === 1, 'the first attempt recorded')
    const alarmAt = async (ms: number) => {
      vi.setSystemTime(start + ms)
      expect(await runDurableObjectAlarm(userIndexStub(env, as)), `an alarm set at ${ms} ms`).toBe(true)
    }
    const delivered = () => until(async () => (await deliveries(as, hook.id, 'delivered')).length === 1, 'the retry delivered')
    /** Each attempt's `webhook-timestamp` (when it was made, in whole seconds), from `start`. */
    const madeAt = (all: Attempt[]) => all.map((attempt) => Number(attempt.headers['webhook-timestamp']) - start / 1000)
    return { as, hook, alarmAt, delivered, madeAt }
  }

  it('retries a failed attempt on the schedule, 5 s after it and not sooner, with the same webhook-id and its own timestamp', async () => {
    const { as, hook, alarmAt, delivered, madeAt } = await firstAttempt('fail-once')
    await alarmAt(4_999) // nothing is due yet (a retry sent now would say 4 s)
    await alarmAt(5_000)
    await delivered()
    const all = await attempts(hook.name)
    expect(all.map((attempt) => attempt.answered)).toEqual([500, 200])
    expect(madeAt(all)).toEqual([0, 5])
    const [first, second] = all
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id'])
    // Each attempt is signed for its own timestamp.
    expect(() => new Webhook(hook.secret).verify(second!.body, second!.headers)).not.toThrow()
    expect((await deliveries(as, hook.id))[0]).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200 })
  })

  it('takes a receiver’s Retry-After in place of the schedule: a 503 asking for 1 s is retried 1 s after it, not 5', async () => {
    const { hook, alarmAt, delivered, madeAt } = await firstAttempt('retry-after')
    await alarmAt(999) // nothing is due yet (a retry sent now would say 0 s)
    await alarmAt(1_000)
    await delivered()
    const all = await attempts(hook.name)
    expect(all.map((attempt) => attempt.answered)).toEqual([503, 200])
    expect(madeAt(all)).toEqual([0, 1])
  })

  it('retries a receiver that does not answer in time, recording why', async () => {
    const as = newUser()
    const hook = await register(as, 'slow-once')
    await turn(newSessionId('wh'), { content: 'q' }, as)
    await until(async () => (await deliveries(as, hook.id, 'pending'))[0]?.attempts === 1, 'the first attempt to time out')
    expect((await deliveries(as, hook.id))[0]).toMatchObject({
      lastStatus: null,
      lastError: expect.stringContaining('no answer'),
    })
    await until(async () => (await deliveries(as, hook.id, 'delivered')).length === 1, 'the retry to succeed')
  })

  it('disables an endpoint that answers 410, records what it raises meanwhile as failed, and sends only what comes after it is enabled again', async () => {
    const as = newUser()
    const hook = await register(as, 'gone', ['turn.completed'])
    const id = newSessionId('wh')
    await turn(id, { content: 'first' }, as)
    await until(
      async () => (await call('GET', `/v1/webhooks/${hook.id}`, { user: as })).body.disabled === true,
      'the endpoint disabled',
    )
    expect((await deliveries(as, hook.id, 'failed'))[0]).toMatchObject({ lastStatus: 410 })
    await turn(id, { content: 'second' }, as)
    await until(async () => (await deliveries(as, hook.id, 'failed')).length === 2, 'the second recorded as failed')
    expect((await deliveries(as, hook.id, 'failed'))[0]).toMatchObject({ attempts: 0, lastError: 'the endpoint is disabled' })
    const enabled = await call('PATCH', `/v1/webhooks/${hook.id}`, { user: as, body: { disabled: false } })
    expect(enabled.body.disabled).toBe(false)
    // The test event goes out (and is answered 410 again): the one failed meanwhile never is.
    expect((await call('POST', `/v1/webhooks/${hook.id}/test`, { user: as })).status).toBe(202)
    await until(async () => (await attempts(hook.name)).length === 2, 'the test event')
    expect((await bodies(hook.name)).map((body) => body.type)).toEqual(['turn.completed', 'webhook.test'])
  })
})

describe('webhook event types', () => {
  it('sends webhook.test whatever the endpoint subscribes to', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['session.expired'])
    const sent = await call('POST', `/v1/webhooks/${hook.id}/test`, { user: as })
    expect(sent.status).toBe(202)
    await until(async () => (await bodies(hook.name)).length === 1, 'the test event')
    expect((await bodies(hook.name))[0]).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.id } })
    expect((await call('POST', '/v1/webhooks/wh_00000000000000000000000000000000/test', { user: as })).status).toBe(404)
  })

  it('tells a turn that waits on client tools, a failed turn, a rewind, a fork, a deletion and an expiry', async () => {
    const as = newUser()
    const hook = await register(as, 'ok')
    const id = newSessionId('wh')
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }]
    const waiting = await turn(id, { content: 'use a tool', model: 'tools-c1', tools }, as)
    expect(waiting.body.status).toBe('requires_action')
    expect((await turn(id, { content: 'fails', model: 'fail-500' }, as)).status).toBe(502)
    const events = (await call('GET', `/v1/sessions/${id}/events`, { user: as })).body.events
    expect(
      (await call('POST', `/v1/sessions/${id}/rewind`, { user: as, body: { to: events[0].id, position: 'before' } })).status,
    ).toBe(200)
    const fork = newSessionId('fork')
    expect((await call('POST', `/v1/sessions/${id}/fork`, { user: as, body: { id: fork } })).status).toBe(201)
    expect((await call('DELETE', `/v1/sessions/${fork}`, { user: as })).status).toBe(204)
    const brief = newSessionId('brief')
    expect((await call('POST', '/v1/sessions', { user: as, body: { id: brief, ttlSeconds: 1 } })).status).toBe(201)
    const types = [
      'turn.requires_action',
      'turn.failed',
      'session.rewound',
      'session.forked',
      'session.deleted',
      'session.expired',
    ]
    await until(async () => (await bodies(hook.name)).length >= types.length, 'every event')
    const seen = await bodies(hook.name)
    expect(seen.map((body) => body.type).sort()).toEqual([...types].sort())
    const of = (type: string) => seen.find((body) => body.type === type)!.data
    expect(of('turn.requires_action')).toMatchObject({ sessionId: id, toolCallIds: waiting.body.toolCalls.map((c: any) => c.id) })
    expect(of('turn.failed')).toMatchObject({ sessionId: id, error: { code: 'upstream_error' } })
    expect(of('session.rewound')).toMatchObject({ sessionId: id, reason: 'api' })
    expect(of('session.forked')).toEqual({ sessionId: id, forkId: fork })
    expect(of('session.deleted')).toEqual({ sessionId: fork })
    expect(of('session.expired')).toEqual({ sessionId: brief })
    for (const body of seen) expect(Date.parse(body.timestamp)).not.toBeNaN()
  })

  it('tells a summarizer failure as compaction.failed, and a pass as session.compacted', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['compaction.failed', 'session.compacted'])
    const id = newSessionId('wh')
    await append(id, [user('q1'), assistant('a1'), user('q2'), assistant('a2')], as)
    const strategy = (model: string) => ({ window: { lastTurns: 1 }, summarizer: { model } })
    const failed = await call('POST', `/v1/sessions/${id}/compact`, { user: as, body: { strategy: strategy('fail-500') } })
    expect(failed.status).toBe(502)
    const passed = await call('POST', `/v1/sessions/${id}/compact`, { user: as, body: { strategy: strategy('echo') } })
    expect(passed.status).toBe(200)
    await until(async () => (await bodies(hook.name)).length === 2, 'both events')
    const [failure, pass] = await bodies(hook.name).then((all) => all.sort((a, b) => a.type.localeCompare(b.type)))
    expect(failure).toMatchObject({ type: 'compaction.failed', data: { sessionId: id, error: { code: 'upstream_error' } } })
    expect(pass).toMatchObject({ type: 'session.compacted', data: { sessionId: id, eventId: passed.body.boundary.id } })
  })

  it('delivers every notice of a burst that outgrows the session row (the rest wait in the outbox table)', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['session.rewound'])
    const id = newSessionId('burst')
    const { events } = await append(id, [user('q1'), assistant('a1'), user('q2'), assistant('a2')], as)
    // Forty rewinds inside the object, faster than its hand-over comes (200 ms after the first).
    const [written, spilled] = await runInDurableObject(sessionStub(env, as, id), async (instance, state) => {
      const session = instance as unknown as ReturnType<typeof sessionClient>
      const ids: string[] = []
      let inTable = false
      for (let i = 0; i < 40; i++) {
        const rewound = await session.rewind({ to: events[i % 2 === 0 ? 1 : 3]!.id, position: 'at' })
        if (!rewound.ok || !rewound.value.rewind) throw new Error(`rewind ${i}: ${JSON.stringify(rewound)}`)
        ids.push(rewound.value.rewind.id)
        inTable ||= state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM outbox').one().n > 0
      }
      return [ids, inTable] as const
    })
    expect(spilled).toBe(true)
    await until(async () => (await bodies(hook.name)).length >= 40, 'every rewind delivered')
    expect((await bodies(hook.name)).map((body) => body.data.eventId).sort()).toEqual([...written].sort())
  })

  it('sends session.deleted for each session an erasure of everything wipes', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['session.deleted'])
    const ids = [newSessionId('e'), newSessionId('e')]
    for (const id of ids) expect((await call('POST', '/v1/sessions', { user: as, body: { id } })).status).toBe(201)
    expect((await call('DELETE', '/v1/sessions', { user: as, body: { all: true } })).status).toBe(202)
    await until(async () => (await bodies(hook.name)).length === 2, 'both deletions')
    expect((await bodies(hook.name)).map((body) => body.data.sessionId).sort()).toEqual([...ids].sort())
  })
})
