import { abortAllDurableObjects } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { project } from '../../src/core'
import {
  append,
  call,
  expectError,
  expectNothingLost,
  newSessionId,
  newTag,
  turn,
  twoTurns,
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'

const log = (id: string) => wholeLog(id)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The log is whole: the view is its projection, every user message of a turn has its reply, nothing was lost. */
async function expectWhole(id: string) {
  const events = await log(id)
  const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events
  expect(view).toEqual(project(events))
  return { events, ...(await expectNothingLost(events)) }
}

describe('upstream faults', () => {
  it('429s are retried before any output; too many of them are a 502', async () => {
    const tag = newTag()
    expect((await turn(newSessionId(), { content: 'hi', model: `limited-2#${tag}`, compaction: false })).status).toBe(200)
    expect(await upstreamRequests(tag)).toHaveLength(3)
    const id = newSessionId()
    expectError(await turn(id, { content: 'hi', model: `limited-9#${newTag()}`, compaction: false }), 502, 'upstream_error')
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
  })

  it('a blank reply is a 502 and nothing is written', async () => {
    const id = newSessionId()
    await append(id, [user('before')])
    for (const mode of ['blank', 'null']) {
      const result = await turn(id, { content: 'hi', model: `${mode}#${newTag()}`, compaction: false })
      expectError(result, 502, 'upstream_error')
      expect(result.body.error.message).toBe('the model answered with an empty reply')
    }
    expect(await log(id)).toHaveLength(1)
  })

  it('a slow summary while turns and appends arrive: the log stays whole and nothing leaves the view without a boundary', async () => {
    const id = newSessionId()
    const policy = {
      trigger: { turnCount: 2 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `slow-400#${newTag()}` } },
    }
    await append(id, [user('U0'), { message: { role: 'assistant', content: 'A0' } }])
    const work: Promise<unknown>[] = []
    for (let i = 1; i <= 4; i++) {
      work.push(turn(id, { content: `turn ${i}`, compaction: policy }))
      work.push(append(id, [user(`appended ${i}`)]))
      await sleep(120)
    }
    const results = await Promise.all(work)
    expect(
      results
        .filter((r) => (r as { status?: number }).status !== undefined)
        .every((r) => (r as { status: number }).status === 200),
    ).toBe(true)
    const { events, view, covered } = await expectWhole(id)
    expect(events.filter((e) => e.type === 'COMPACTION').length).toBeGreaterThan(0)
    // Every message written is in the view, or a boundary covered it while it was in the view.
    const inView = new Set(view.map((e) => e.id))
    const messages = events.filter((e) => e.type === 'MESSAGE' && !e.synthetic)
    expect(messages.length).toBe(4 * 3 + 2) // U0 A0, then per round: the turn's pair and the appended message
    for (const event of messages) expect(inView.has(event.id) || covered.has(event.id), event.id).toBe(true)
  })
})

describe('the object aborted mid-flight', () => {
  it('during a turn, between the model call and the write: nothing half-written, and the retry completes it', async () => {
    const id = newSessionId()
    await append(id, [user('before'), { message: { role: 'assistant', content: 'reply' } }])
    const pending = turn(id, { id: 'turn-x', content: 'interrupted', model: `slow-1000#${newTag()}`, compaction: false })
    await sleep(300)
    await abortAllDurableObjects()
    const interrupted = await pending
    expect(interrupted.status).toBeGreaterThanOrEqual(500)
    expect(Object.keys(interrupted.body ?? {})).toEqual(['error'])
    const { events } = await expectWhole(id)
    expect(events).toHaveLength(2)
    const retried = await turn(id, { id: 'turn-x', content: 'interrupted', compaction: false })
    expect(retried.status).toBe(200)
    expect((await expectWhole(id)).events.map((e) => e.message.content)).toEqual([
      'before',
      'reply',
      'interrupted',
      'Echo: interrupted',
    ])
  })

  it('during a compaction waiting for its summary: no boundary is written and the view is intact', async () => {
    const id = newSessionId()
    await append(id, twoTurns())
    const before = (await call('GET', `/v1/sessions/${id}/view`)).body
    const pending = call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `slow-1000#${newTag()}` } } },
    })
    await sleep(300)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before)
    expect((await log(id)).every((e) => e.type === 'MESSAGE')).toBe(true)
    const again = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(again.body.unchanged).toBe(false)
    await expectWhole(id)
  })
})

describe('load', () => {
  it('50 concurrent turns on one session come out serialized as 50 whole pairs', async () => {
    const id = newSessionId()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => turn(id, { content: `message ${i}`, compaction: false })),
    )
    expect(results.every((r) => r.status === 200)).toBe(true)
    const { events } = await expectWhole(id)
    expect(events).toHaveLength(100)
    for (let i = 0; i < 100; i += 2) {
      expect(events[i].message.role).toBe('user')
      expect(events[i + 1].message.content).toBe(`Echo: ${events[i].message.content}`)
    }
    expect(new Set(events.filter((e) => e.message.role === 'user').map((e) => e.message.content)).size).toBe(50)
  })
})
