import { abortAllDurableObjects } from 'cloudflare:test'
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import {
  append,
  type Call,
  call,
  deltas,
  expectError,
  expectWholeLog,
  newSessionId,
  newTag,
  releaseUpstream,
  sseReader,
  tokenFor,
  turn,
  twoTurns,
  untilUpstreamReceived,
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'

const log = (id: string) => wholeLog(id)

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

  it('summaries in flight while turns and appends arrive: the log stays whole and nothing leaves the view without a boundary', async () => {
    const id = newSessionId()
    const summaries = newTag()
    // Every turn compacts after it, with a summary the upstream holds until the test releases it.
    const policy = {
      trigger: { turnCount: 1 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${summaries}` } },
    }
    await append(id, [user('U0'), { message: { role: 'assistant', content: 'A0' } }])
    const results: Call[] = []
    let next: Promise<Call> | null = turn(id, { content: 'turn 1', compaction: policy })
    for (let i = 1; next; i++) {
      await untilUpstreamReceived(summaries, i) // turn i is written; its summary is in flight
      await append(id, [user(`appended ${i}`)])
      const following = i < 4 ? turn(id, { content: `turn ${i + 1}`, compaction: policy }) : null
      await releaseUpstream(summaries)
      results.push(await next)
      next = following
    }
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200])
    // Each pass wrote its boundary over the message appended while its summary was being written.
    for (const [i, result] of results.entries()) {
      expect(result.body.compaction.unchanged).toBe(false)
      expect(result.body.compaction.preserved.map((e: { message: { content: string } }) => e.message.content)).toContain(
        `appended ${i + 1}`,
      )
    }
    const { events, view, covered } = await expectWholeLog(id)
    expect(events.filter((e) => e.type === 'COMPACTION')).toHaveLength(4)
    // Every message written is in the view, or a boundary covered it while it was in the view.
    const inView = new Set(view.map((e) => e.id))
    const messages = events.filter((e) => e.type === 'MESSAGE' && !e.synthetic)
    expect(messages.length).toBe(4 * 3 + 2) // U0 A0, then per round: the turn's pair and the appended message
    for (const event of messages) expect(inView.has(event.id) || covered.has(event.id), event.id).toBe(true)
  })
})

/** Nothing of the interrupted turn was written, and its retry (same id) completes it. */
async function expectRetryCompletes(id: string, turnId: string) {
  expect((await expectWholeLog(id)).events).toHaveLength(2)
  const retried = await turn(id, { id: turnId, content: 'interrupted', compaction: false })
  expect(retried.status).toBe(200)
  expect((await expectWholeLog(id)).events.map((e) => e.message.content)).toEqual([
    'before',
    'reply',
    'interrupted',
    'Echo: interrupted',
  ])
}

describe('the object aborted mid-flight', () => {
  it('during a turn, while its model call is unanswered: nothing is written, and the retry completes it', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [user('before'), { message: { role: 'assistant', content: 'reply' } }])
    const pending = turn(id, { id: 'turn-x', content: 'interrupted', model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    const interrupted = await pending
    await releaseUpstream(tag) // answered to no one
    expect(interrupted.status).toBeGreaterThanOrEqual(500)
    expect(Object.keys(interrupted.body ?? {})).toEqual(['error'])
    await expectRetryCompletes(id, 'turn-x')
  })

  it('during a streamed turn whose whole reply has reached the client, before the model’s stream ends: nothing is written, and the retry completes it', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [user('before'), { message: { role: 'assistant', content: 'reply' } }])
    const response = await exports.default.fetch(
      new Request(`https://sessions.test/v1/sessions/${id}/turns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
        // The upstream streams the whole reply, then holds the end of its stream.
        body: JSON.stringify({ id: 'turn-y', content: 'interrupted', stream: true, model: `holdend#${tag}`, compaction: false }),
      }),
    )
    const stream = sseReader(response)
    await stream.until((frames) => deltas(frames) === 'Echo: interrupted')
    await abortAllDurableObjects()
    const frames = await stream.rest()
    await releaseUpstream(tag) // the end of a stream no one reads
    expect(frames.some((f) => f.event === 'done')).toBe(false)
    expect(frames.at(-1)?.event).toBe('error')
    await expectRetryCompletes(id, 'turn-y')
  })

  it('during a compaction waiting for its summary: no boundary is written and the view is intact', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, twoTurns())
    const before = (await call('GET', `/v1/sessions/${id}/view`)).body
    const pending = call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } } },
    })
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before)
    expect((await log(id)).every((e) => e.type === 'MESSAGE')).toBe(true)
    const again = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(again.body.unchanged).toBe(false)
    await expectWholeLog(id)
  })
})

describe('load', () => {
  it('50 concurrent turns on one session come out serialized as 50 whole pairs', async () => {
    const id = newSessionId()
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => turn(id, { content: `message ${i}`, compaction: false })),
    )
    expect(results.every((r) => r.status === 200)).toBe(true)
    const { events } = await expectWholeLog(id)
    expect(events).toHaveLength(100)
    for (let i = 0; i < 100; i += 2) {
      expect(events[i].message.role).toBe('user')
      expect(events[i + 1].message.content).toBe(`Echo: ${events[i].message.content}`)
    }
    expect(new Set(events.filter((e) => e.message.role === 'user').map((e) => e.message.content)).size).toBe(50)
  })
})
