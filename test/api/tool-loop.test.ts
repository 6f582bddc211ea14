import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openAIContent, openAIMessagesOf } from '../../src/contract/openai-messages'
import { type MessageEvent, pairToolResults } from '../../src/core'
import { append, call, expectError, newSessionId, newTag, parseSSE, turn, upstreamRequests, user, wholeLog } from '../helpers'

const weather = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
}
const minted = /^call_[0-9a-f]{32}$/
const roles = (events: { message: { role: string } }[]) => events.map((e) => e.message.role)

/** A session whose newest turn waits for the results of calls `ids` (the agent mode answers their results next). */
async function waiting(ids = 'c1,c2', tag = newTag()) {
  const id = newSessionId()
  const first = await turn(id, { content: 'Weather in Paris and Rome?', model: `agent-${ids}#${tag}`, tools: [weather] })
  expect(first.body.status, first.text).toBe('requires_action')
  return { id, tag, first: first.body }
}

describe('continuing a turn with tool results', () => {
  it('writes one tool event (request order, names from the calls, errors listed) and the reply together, and calls the model with them', async () => {
    const { id, tag, first } = await waiting()
    const result = await turn(id, {
      toolResults: [
        { id: 'c2', error: 'no such city' },
        { id: 'c1', name: 'get_weather', data: '{"temp":21}' },
      ],
      model: `agent-c9#${tag}`,
      tools: [weather],
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({ status: 'completed', toolCalls: [] })
    expect(result.body.reply.message.content).toBe('Results: {"temp":21} | no such city')
    const [tool, reply] = result.body.events
    expect(result.body.events).toHaveLength(2)
    expect(tool.message).toEqual({
      role: 'tool',
      content: null,
      toolResponses: [
        { id: 'c2', name: 'get_weather', data: 'no such city' },
        { id: 'c1', name: 'get_weather', data: '{"temp":21}' },
      ],
    })
    expect(tool.metadata).toEqual({ toolErrors: ['c2'] })
    expect(reply.seq).toBe(tool.seq + 1)
    expect(result.body.usage).toMatchObject({ promptTokens: expect.any(Number) })
    // The model saw the calls, then each result right after them (in call order), and no extra user message.
    const sent = (await upstreamRequests(tag)).at(-1)!.body.messages
    expect(sent.slice(-3)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: first.toolCalls.map((c: { id: string; name: string; arguments: string }) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"temp":21}' },
      { role: 'tool', tool_call_id: 'c2', content: 'no such city' },
    ])
    expect(roles(await wholeLog(id))).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('a tool event without error results has no toolErrors; a reply that calls tools again keeps the loop going', async () => {
    const { id, tag } = await waiting('c1')
    const second = await turn(id, { toolResults: [{ id: 'c1', data: 'sunny' }], model: `tools-c3#${tag}`, tools: [weather] })
    expect(second.body.events[0].metadata).toEqual({})
    expect(second.body).toMatchObject({ status: 'requires_action', toolCalls: [{ id: 'c3', name: 'get_weather' }] })
    const third = await turn(id, { toolResults: [{ id: 'c3', data: 'rainy' }], model: `agent-x#${tag}`, tools: [weather] })
    expect(third.body.reply.message.content).toBe('Results: rainy')
    expect(roles(await wholeLog(id))).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
  })

  it('takes a system message too: written with the tool event and the reply when it changed, and sent first', async () => {
    const { id, tag } = await waiting('c1')
    const result = await turn(id, {
      toolResults: [{ id: 'c1', data: 'ok' }],
      system: 'Answer in French.',
      model: `agent-x#${tag}`,
    })
    expect(roles(result.body.events)).toEqual(['system', 'tool', 'assistant'])
    const sent = (await upstreamRequests(tag)).at(-1)!.body.messages
    expect(sent[0]).toEqual({ role: 'system', content: 'Answer in French.' })
    expect(sent.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'ok' })
  })

  it('sent again, answers the stored result without calling the model; with other data it is a 409, nothing written', async () => {
    const { id, tag } = await waiting('c1')
    const body = { toolResults: [{ id: 'c1', data: 'sunny' }], model: `agent-x#${tag}`, tools: [weather] }
    const done = await turn(id, body)
    const calls = (await upstreamRequests(tag)).length
    const again = await turn(id, body)
    expect(again.status).toBe(200)
    expect(again.body.reply).toEqual(done.body.reply)
    expect(again.body.events).toEqual(done.body.events)
    expect(again.body.usage).toEqual(done.body.usage)
    expect(await upstreamRequests(tag)).toHaveLength(calls)
    const before = await wholeLog(id)
    expectError(await turn(id, { ...body, toolResults: [{ id: 'c1', data: 'rainy' }] }), 409, 'id_conflict')
    expectError(await turn(id, { ...body, toolResults: [{ id: 'c1', error: 'sunny' }] }), 409, 'id_conflict')
    expect(await wholeLog(id)).toEqual(before)
  })

  it('two continuations racing for the same calls: one is written, the other gets its result or a 409', async () => {
    const { id, tag } = await waiting('c1')
    const body = { toolResults: [{ id: 'c1', data: 'sunny' }], model: `agent-x#${tag}` }
    const [a, b] = await Promise.all([turn(id, body), turn(id, body)])
    expect([a.status, b.status]).toEqual([200, 200])
    expect(b.body.reply).toEqual(a.body.reply)
    const [c, d] = await Promise.all([
      turn(id, { toolResults: [{ id: 'c1', data: 'rainy' }], model: 'agent-x' }),
      turn(id, { toolResults: [{ id: 'c1', data: 'sunny' }], model: 'agent-x' }),
    ])
    expect([c.status, d.status]).toEqual([409, 200])
    expect(roles(await wholeLog(id))).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('refuses, in order, with nothing written: nothing pending, an id not pending, a wrong name, results missing', async () => {
    const { id } = await waiting('c1,c2')
    const before = await wholeLog(id)
    const refused = async (toolResults: unknown[], status: number, code: string, names: string) => {
      const result = await turn(id, { toolResults, model: 'agent-x' })
      expectError(result, status, code)
      expect(result.body.error.message).toContain(names)
    }
    await refused([{ id: 'nope', data: 'x' }], 400, 'invalid_request', 'toolResults[0].id')
    await refused([{ id: 'c1', name: 'other', data: 'x' }], 400, 'invalid_request', 'toolResults[0].name')
    await refused([{ id: 'c2', data: 'x' }], 409, 'tool_results_incomplete', '"c1"')
    expect(await wholeLog(id)).toEqual(before)
    const idle = newSessionId()
    await turn(idle, { content: 'Hi', model: 'echo' })
    const none = await turn(idle, { toolResults: [{ id: 'c1', data: 'x' }], model: 'agent-x' })
    expectError(none, 409, 'no_pending_tool_calls')
    expect(await wholeLog(idle)).toHaveLength(2)
  })

  it('on a session that does not exist is a 404; bad shapes are 400s naming the field', async () => {
    expectError(await turn(newSessionId(), { toolResults: [{ id: 'c1', data: 'x' }] }), 404, 'not_found')
    const bad: [Record<string, unknown>, string][] = [
      [{}, 'content'],
      [{ content: 'Hi', toolResults: [{ id: 'c1', data: 'x' }] }, 'content'],
      [{ id: 'u1', toolResults: [{ id: 'c1', data: 'x' }] }, 'id'],
      [{ toolResults: [] }, 'toolResults'],
      [{ toolResults: [{ id: 'c1' }] }, 'toolResults[0]'],
      [{ toolResults: [{ id: 'c1', data: 'x', error: 'y' }] }, 'toolResults[0]'],
      [
        {
          toolResults: [
            { id: 'c1', data: 'x' },
            { id: 'c1', data: 'y' },
          ],
        },
        'toolResults[1].id',
      ],
      [{ toolResults: [{ id: 'c1', data: 7 }] }, 'toolResults[0].data'],
      [{ toolResults: [{ id: '', data: 'x' }] }, 'toolResults[0].id'],
    ]
    const { id } = await waiting('c1')
    for (const [body, path] of bad) {
      const result = await turn(id, body)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(body)).toContain(path)
    }
  })

  it('writes nothing when the model fails: the same request then simply goes through', async () => {
    const { id, tag } = await waiting('c1')
    const before = await wholeLog(id)
    const body = { toolResults: [{ id: 'c1', data: 'sunny' }], tools: [weather] }
    expectError(await turn(id, { ...body, model: 'fail-500' }), 502, 'upstream_error')
    expect(await wholeLog(id)).toEqual(before)
    const result = await turn(id, { ...body, model: `agent-x#${tag}` })
    expect(result.body.reply.message.content).toBe('Results: sunny')
  })

  it('is a 413 when the newest turn alone does not fit, nothing written; earlier turns may be compacted to fit it', async () => {
    const { id } = await waiting('c1')
    const before = await wholeLog(id)
    // ~10k tokens of result against the default 8192-token context.
    const huge = 'lorem ipsum dolor sit amet '.repeat(2000)
    expectError(await turn(id, { toolResults: [{ id: 'c1', data: huge }], model: 'agent-x' }), 413, 'context_overflow')
    expect(await wholeLog(id)).toEqual(before)

    const long = newSessionId()
    for (let i = 0; i < 6; i++)
      await append(long, [user(`${'earlier words here '.repeat(200)} ${i}`), { message: { role: 'assistant', content: 'ok' } }])
    const ask = await turn(long, { content: 'Weather?', model: 'agent-c1', tools: [weather], compaction: false })
    expect(ask.body.status).toBe('requires_action')
    const fits = 'fine weather all week '.repeat(900) // fits only once the earlier turns are left out
    const result = await turn(long, { toolResults: [{ id: 'c1', data: fits }], model: 'agent-x' })
    expect(result.status, result.text).toBe(200)
    expect(result.body.context.compactions.length).toBeGreaterThan(0)
    const view = (await call('GET', `/v1/sessions/${long}/view`)).body.events
    // The loop in progress stays whole in the view.
    expect(roles(view.slice(-4))).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect(view.at(-4).message.content).toBe('Weather?')
  })
})

describe('a new message while calls are pending', () => {
  it('first closes them with interrupted results (an append of its own), then the turn goes on', async () => {
    const { id, tag } = await waiting('c1,c2')
    const result = await turn(id, { content: 'Never mind, tell me a joke', model: `echo#${tag}` })
    expect(result.status, result.text).toBe(200)
    const [closed, asked, reply] = result.body.events
    expect(closed.message).toEqual({
      role: 'tool',
      content: null,
      toolResponses: ['c1', 'c2'].map((c) => ({
        id: c,
        name: 'get_weather',
        data: '{"error":"interrupted: no result was sent"}',
      })),
    })
    expect(closed.metadata).toEqual({ interrupted: true })
    expect(roles([asked, reply])).toEqual(['user', 'assistant'])
    const sent = (await upstreamRequests(tag)).at(-1)!.body.messages
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user'])
    // A retry of that turn by id would answer the same events; the calls are no longer pending.
    expectError(await turn(id, { toolResults: [{ id: 'c1', data: 'x' }], model: 'agent-x' }), 409, 'no_pending_tool_calls')
  })

  it('the interrupted results stay written when the turn then fails', async () => {
    const { id } = await waiting('c1')
    expectError(await turn(id, { content: 'Moving on', model: 'fail-500' }), 502, 'upstream_error')
    const log = await wholeLog(id)
    expect(roles(log)).toEqual(['user', 'assistant', 'tool'])
    expect(log.at(-1).metadata).toEqual({ interrupted: true })
  })

  it('a retried content turn answers its stored result, interrupted results included', async () => {
    const { id, tag } = await waiting('c1')
    const body = { id: 'moving-on', content: 'Moving on', model: `echo#${tag}` }
    const first = await turn(id, body)
    const again = await turn(id, body)
    expect(roles(first.body.events)).toEqual(['tool', 'user', 'assistant'])
    expect(again.body.events).toEqual(first.body.events)
  })
})

describe('tool call ids', () => {
  it('a call reusing an id the log already has gets a fresh one', async () => {
    const { id, tag } = await waiting('dup')
    const again = await turn(id, { toolResults: [{ id: 'dup', data: 'x' }], model: `tools-dup#${tag}`, tools: [weather] })
    expect(again.body.toolCalls[0].id).toMatch(minted)
    // An id appended through /events counts too.
    const other = newSessionId()
    await append(other, [{ message: { role: 'tool', content: null, toolResponses: [{ id: 'mine', name: 'f', data: '1' }] } }])
    const reply = await turn(other, { content: 'Go', model: `tools-mine,fresh#${tag}`, tools: [weather] })
    expect(reply.body.toolCalls[0].id).toMatch(minted)
    expect(reply.body.toolCalls[1].id).toBe('fresh')
  })

  it('streamed: each client call comes as a tool_call event with the id it is stored with, then done', async () => {
    const id = newSessionId()
    const result = await turn(id, { content: 'Weather?', model: `tools-_,c2#${newTag()}`, tools: [weather], stream: true })
    const events = parseSSE(result.text)
    expect(events.map((e) => e.event)).toEqual(['tool_call', 'tool_call', 'done'])
    const done = events.at(-1)!.data
    expect(events.slice(0, 2).map((e) => e.data)).toEqual(done.toolCalls)
    expect(done.toolCalls[0].id).toMatch(minted)
    expect((await wholeLog(id)).at(-1).message.toolCalls).toEqual(done.toolCalls)
    // And the loop continues streamed, the reply's text as deltas.
    const next = await turn(id, {
      toolResults: done.toolCalls.map((c: { id: string }) => ({ id: c.id, data: 'ok' })),
      model: 'agent-x',
      stream: true,
    })
    const after = parseSSE(next.text)
    expect(
      after
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join(''),
    ).toBe('Results: ok | ok')
    expect(after.at(-1)!.data.status).toBe('completed')
  })
})

describe('GET /view?format=openai', () => {
  const toolCall = (...ids: string[]) => ({
    message: { role: 'assistant', content: null, toolCalls: ids.map((c) => ({ id: c, name: 'lookup', arguments: '{}' })) },
  })
  const toolResult = (...answers: [string, string][]) => ({
    message: { role: 'tool', content: null, toolResponses: answers.map(([c, data]) => ({ id: c, name: 'lookup', data })) },
  })
  const asCall = (...ids: string[]) => ({
    role: 'assistant',
    content: null,
    tool_calls: ids.map((c) => ({ id: c, type: 'function', function: { name: 'lookup', arguments: '{}' } })),
  })

  it('is pairing-safe like a prompt, but shows the newest turn’s pending calls unanswered', async () => {
    const id = newSessionId()
    await append(id, [
      toolResult(['stray', 'no call for me']),
      user('Look it up'),
      toolCall('c1', 'c2'),
      user('Never mind'),
      toolResult(['c1', 'late']),
      user('Now this'),
      toolCall('c3', 'c4'),
      toolResult(['c4', 'four']),
    ])
    const view = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(view.body.messages).toEqual([
      { role: 'user', content: 'Look it up' },
      asCall('c1', 'c2'),
      { role: 'tool', tool_call_id: 'c1', content: 'late' },
      { role: 'tool', tool_call_id: 'c2', content: '{"error":"no result was recorded"}' },
      { role: 'user', content: 'Never mind' },
      { role: 'user', content: 'Now this' },
      asCall('c3', 'c4'),
      // c3 is pending: the client owes it, so it stays open.
      { role: 'tool', tool_call_id: 'c4', content: 'four' },
    ])
    // The log is as appended.
    expect(await wholeLog(id)).toHaveLength(8)
  })

  it('renders a session of results larger than one stored value the same, each result verbatim', async () => {
    const id = newSessionId()
    const big = (n: number) => `${n}:${'é'.repeat(300_000)}`
    await append(id, [user('Fetch both'), toolCall('a', 'b')])
    await append(id, [toolResult(['b', big(2)])])
    await append(id, [toolResult(['a', big(1)]), { message: { role: 'assistant', content: 'Got them' } }])
    const view = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(view.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
    expect(view.body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'a', content: big(1) })
    expect(view.body.messages[3]).toEqual({ role: 'tool', tool_call_id: 'b', content: big(2) })
  })
})

describe('GET /view?format=openai, streamed from storage', () => {
  const ids = ['a', 'b', 'c']
  const message = fc.oneof(
    fc.constant({ role: 'user', content: 'u' }),
    fc.constant({ role: 'assistant', content: 'a' }),
    fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }).map((cs) => ({
      role: 'assistant',
      content: null,
      toolCalls: cs.map((id) => ({ id, name: 'f', arguments: '{}' })),
    })),
    fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }).map((rs) => ({
      role: 'tool',
      content: null,
      toolResponses: rs.map((id, i) => ({ id, name: 'f', data: `${id}${i}` })),
    })),
  )

  it('renders any log as the core’s pairing does (the newest turn’s pending calls open)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 12 }), async (messages) => {
        const id = newSessionId()
        await append(
          id,
          messages.map((m) => ({ message: m })),
        )
        const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events as MessageEvent[]
        const expected = pairToolResults(view, { open: true }).flatMap((item) =>
          item.kind === 'result'
            ? [{ role: 'tool' as const, tool_call_id: item.id, content: openAIContent(item.data) }]
            : openAIMessagesOf(item.event),
        )
        expect((await call('GET', `/v1/sessions/${id}/view?format=openai`)).body.messages).toEqual(expected)
      }),
      { numRuns: 25 },
    )
  })
})
