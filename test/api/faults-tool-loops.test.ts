/**
 * Faults in tool loops: loops left, resumed, raced, interrupted by an object restart, cut mid
 * tool-call stream. After each, the log must be whole: the view is its projection, nothing left
 * the view without a boundary, and every prompt the service would send is valid on the wire.
 */
import { abortAllDurableObjects } from 'cloudflare:test'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  call,
  expectWholeLog,
  newSessionId,
  newTag,
  parseSSE,
  releaseUpstream,
  turn,
  untilUpstreamReceived,
  upstreamRequests,
} from '../helpers'

const WEATHER = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]

afterEach(() => {
  vi.useRealTimers()
})

/** The log is whole (as in faults.test.ts), and paired: every call in the OpenAI view is answered but the newest turn's pending ones. */
async function expectWhole(id: string) {
  const { events } = await expectWholeLog(id)
  const messages = (await call('GET', `/v1/sessions/${id}/view?format=openai`)).body.messages as {
    role: string
    tool_calls?: { id: string }[]
    tool_call_id?: string
  }[]
  const answered = new Set(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id))
  const pending = new Set((await call('GET', `/v1/sessions/${id}/context`)).body.pendingToolCalls as string[])
  for (const m of messages) for (const c of m.tool_calls ?? []) expect(answered.has(c.id) || pending.has(c.id)).toBe(true)
  return events
}

describe('faults in tool loops', () => {
  it('a client that vanishes mid loop and never comes back: the next message closes the calls as interrupted, and the session goes on', async () => {
    const id = newSessionId('vanish')
    const asked = await turn(id, { content: 'Weather in Paris?', model: 'agent-k1', tools: WEATHER })
    expect(asked.body.status).toBe('requires_action')
    // The client is gone; later the user writes again without results.
    const next = await turn(id, { content: 'Never mind, tell me a joke', compaction: false })
    expect(next.status).toBe(200)
    const events = await expectWhole(id)
    const interrupted = events.find((e) => e.metadata?.interrupted === true)
    expect(interrupted.message.toolResponses.map((r: { id: string }) => r.id)).toEqual(['k1'])
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.pendingToolCalls).toEqual([])
  })

  it('a client that comes back an hour later: its results continue the same turn (nothing closes pending calls with time)', async () => {
    const id = newSessionId('return')
    await turn(id, { content: 'Weather in Paris?', model: 'agent-k1', tools: WEATHER })
    // An hour on for the code under test (its clock is the isolate's Date).
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 3600_000)
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.pendingToolCalls).toEqual(['k1'])
    const resumed = await turn(id, { toolResults: [{ id: 'k1', data: '18 degrees' }], model: 'agent-k1', tools: WEATHER })
    expect(resumed.body).toMatchObject({ status: 'completed', reply: { message: { content: 'Results: 18 degrees' } } })
    await expectWhole(id)
  })

  it('the object aborted between a tool reply and its continuation: the pending call survives, the continuation completes', async () => {
    const id = newSessionId('abort-loop')
    const asked = await turn(id, { content: 'Weather?', model: 'agent-k1', tools: WEATHER })
    expect(asked.body.toolCalls.map((c: { id: string }) => c.id)).toEqual(['k1'])
    await abortAllDurableObjects()
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.pendingToolCalls).toEqual(['k1'])
    const resumed = await turn(id, { toolResults: [{ id: 'k1', data: 'sunny' }], model: 'agent-k1', tools: WEATHER })
    expect(resumed.body.status).toBe('completed')
    expect((await expectWhole(id)).map((e) => e.message?.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('an object aborted while a continuation waits for the model: nothing of it is written, and the same results complete it after', async () => {
    const id = newSessionId('abort-cont')
    await turn(id, { content: 'Weather?', model: 'agent-k1', tools: WEATHER })
    const tag = newTag()
    const held = turn(id, { toolResults: [{ id: 'k1', data: 'windy' }], model: `hold#${tag}`, tools: WEATHER })
    await untilUpstreamReceived(tag) // the continuation waits for the model
    await abortAllDurableObjects()
    expect((await held).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    expect((await expectWhole(id)).map((e) => e.message?.role)).toEqual(['user', 'assistant'])
    const again = await turn(id, { toolResults: [{ id: 'k1', data: 'windy' }], model: 'agent-k1', tools: WEATHER })
    expect(again.body).toMatchObject({ status: 'completed', reply: { message: { content: 'Results: windy' } } })
    await expectWhole(id)
  })

  it('continuations racing for the same pending calls through both doors: one is written, the others get its result or a 409', async () => {
    const id = newSessionId('race')
    const tag = newTag()
    await turn(id, { content: 'Weather in Paris and Rome?', model: `agent-r1,r2#${tag}`, tools: WEATHER })
    // The history as the client was shown it, for the chat-completions door's continuation.
    const shown = (await call('GET', `/v1/sessions/${id}/view?format=openai`)).body.messages
    const results = (city: string) => [
      { id: 'r1', data: `${city} 18 degrees` },
      { id: 'r2', data: `${city} 24 degrees` },
    ]
    const viaTurns = (city: string) => turn(id, { toolResults: results(city), model: `agent-r1,r2#${tag}`, tools: WEATHER })
    // The strict reconciliation: other results for answered calls are refused, not a new branch.
    const viaChatDoor = (city: string) =>
      call('POST', '/v1/chat/completions', {
        headers: { 'X-Session-Id': id, 'X-On-Diverge': 'reject' },
        body: {
          model: `agent-r1,r2#${tag}`,
          tools: WEATHER,
          messages: [...shown, ...results(city).map((r) => ({ role: 'tool', tool_call_id: r.id, content: r.data }))],
        },
      })
    const answers = await Promise.all([
      viaTurns('Paris'),
      viaTurns('Paris'),
      viaChatDoor('Paris'),
      viaTurns('Lyon'),
      viaChatDoor('Lyon'),
    ])
    const events = await expectWhole(id)
    // Exactly one continuation was written: one tool event with both results, one reply.
    expect(events.map((e) => e.message?.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const stored = events[3].message.content
    const written = events[2].message.toolResponses.map((r: { data: string }) => r.data)
    const city = written[0].split(' ')[0]
    for (const [i, answer] of answers.entries()) {
      const sameResults = (i < 3 ? 'Paris' : 'Lyon') === city
      if (!sameResults) {
        // Other results for calls answered already: a 409 (through the chat-completions door, the client's
        // history then differs from the session's).
        expect(answer.status, answer.text).toBe(409)
        expect(['id_conflict', 'history_diverged']).toContain(answer.body.error.code)
        continue
      }
      expect(answer.status, answer.text).toBe(200)
      const content = i === 2 || i === 4 ? answer.body.choices[0].message.content : answer.body.reply.message.content
      expect(content).toBe(stored)
    }
    // The model was called for one continuation only (and once for the turn before).
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('the upstream failing mid tool-call stream: the whole call was streamed, the cut one never; nothing is stored; a retry starts clean', async () => {
    const id = newSessionId('cut-calls')
    const tag = newTag()
    const cut = await turn(id, { content: 'Two lookups', model: `toolscut-a1,a2#${tag}`, tools: WEATHER, stream: true })
    const frames = parseSSE(cut.text)
    expect(frames.filter((f) => f.event === 'tool_call').map((f) => f.data.id)).toEqual(['a1'])
    expect(frames.at(-1)!.event).toBe('error')
    expect(frames.some((f) => f.event === 'done')).toBe(false)
    expect((await upstreamRequests(tag)).length).toBeGreaterThanOrEqual(1)
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404) // not even the session was written
    const retried = await turn(id, { content: 'Two lookups', model: 'tools-a1,a2', tools: WEATHER })
    expect(retried.body.toolCalls.map((c: { id: string }) => c.id)).toEqual(['a1', 'a2'])
    await expectWhole(id)
  })
})
