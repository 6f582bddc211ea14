import { describe, expect, it } from 'vitest'
import { append, assistant, call, expectError, newSessionId, newTag, system, turn, user } from '../helpers'

const contextOf = async (id: string, as = 'alice') => call('GET', `/v1/sessions/${id}/context`, { user: as })

describe('GET /v1/sessions/:id/context', () => {
  it('reports the view by part, the events, the budget, the calibration and the effective policy, writing nothing', async () => {
    const id = newSessionId()
    await append(id, [system('Be brief.'), user('Hello'), assistant('Hi!'), user('More?'), assistant('Sure.')])
    const result = await contextOf(id)
    expect(result.status, result.text).toBe(200)
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body
    const { tokens } = result.body
    expect(tokens.total).toBe(view.tokens)
    expect(tokens.system + tokens.summary + tokens.preamble + tokens.conversation).toBe(tokens.total)
    expect(tokens.system).toBeGreaterThan(0)
    expect(result.body).toMatchObject({
      budget: { contextTokens: 8192, replyTokens: 1024, promptTokens: 7168 },
      calibration: { ratio: 1, samples: 0 },
      events: { log: 5, view: 5, covered: 0 },
      turns: 2,
      pendingToolCalls: [],
      lastUsage: null,
      compactions: 0,
      lastCompaction: null,
      compacting: false,
      queued: 0,
      policy: { trigger: { contextFraction: 0.6 }, strategy: { window: { contextFraction: 0.3 }, summarizer: {} } },
    })
    expect((await call('GET', `/v1/sessions/${id}`)).body.version).toBe(5)
  })

  it('after compactions: what was covered, the newest boundary, the summary’s tokens', async () => {
    const id = newSessionId()
    await append(id, [user('one'), assistant('1'), user('two'), assistant('2'), user('three'), assistant('3')])
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 2 } } } })
    const second = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    const boundary = second.body.boundary
    const result = (await contextOf(id)).body
    expect(result.compactions).toBe(2)
    expect(result.lastCompaction).toEqual({
      boundaryId: boundary.id,
      seq: boundary.seq,
      timestamp: boundary.timestamp,
      coveredEventCount: boundary.boundary.coveredEventCount,
      tokensEstimatedSaved: boundary.boundary.tokensEstimatedSaved,
    })
    // 6 messages and 2 summary messages in the log; the view keeps the summary turn and the last turn.
    expect(result.events).toEqual({ log: 10, view: 4, covered: 4 })
    expect(result.tokens.summary).toBeGreaterThan(0)
  })

  it('after turns: the last usage, the calibration, the calls still owed, the session’s own policy', async () => {
    const id = newSessionId()
    const policy = { trigger: { turnCount: 50 }, strategy: { window: { lastTurns: 10 } } }
    const done = await turn(id, { content: 'Hi', model: 'echo' })
    await call('PATCH', `/v1/sessions/${id}`, { body: { policy } })
    let result = (await contextOf(id)).body
    expect(result.lastUsage).toEqual(done.body.usage)
    expect(result.calibration.samples).toBe(1)
    expect(result.policy).toEqual(policy)
    const weather = { type: 'function', function: { name: 'get_weather' } }
    await turn(id, { content: 'Weather?', model: 'tools-w1,w2', tools: [weather] })
    result = (await contextOf(id)).body
    expect(result.pendingToolCalls).toEqual(['w1', 'w2'])
  })

  it('is a 404 for an absent session and for another user’s', async () => {
    expectError(await contextOf(newSessionId()), 404, 'not_found')
    const id = newSessionId()
    await append(id, [user('mine')])
    expectError(await contextOf(id, 'bob'), 404, 'not_found')
  })
})
