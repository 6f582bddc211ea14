import { createParser } from 'eventsource-parser'
import { describe, expect, it } from 'vitest'
import { append, type Call, call, expectError, newSessionId, newTag, upstreamRequests, user, wholeLog } from '../helpers'

const complete = (session: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/chat/completions', {
    body,
    headers: { ...(session === null ? {} : { 'X-Session-Id': session }), ...headers },
  })
const u = (content: string) => ({ role: 'user', content })
const a = (content: string | null, tool_calls?: unknown[]) => ({
  role: 'assistant',
  content,
  ...(tool_calls ? { tool_calls } : {}),
})
const wireCall = (id: string, args = '{"city":"Paris"}') => ({
  id,
  type: 'function',
  function: { name: 'get_weather', arguments: args },
})
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }
const shown = (log: { message: { role: string; content: string | null } }[]) =>
  log.map((e) => `${e.message.role}:${e.message.content ?? ''}`)

/** The data lines of an SSE answer, [DONE] as the string. */
function chunksOf(result: Call): any[] {
  const out: any[] = []
  const parser = createParser({ onEvent: (m) => out.push(m.data === '[DONE]' ? '[DONE]' : JSON.parse(m.data)) })
  parser.feed(result.text)
  return out
}

describe('POST /v1/chat/completions', () => {
  it('answers a chat.completion, creates the session, stores user + reply, and echoes X-Session-Id', async () => {
    const id = newSessionId()
    const tag = newTag()
    const result = await complete(id, { model: `echo#${tag}`, messages: [{ role: 'system', content: 'Be brief.' }, u('Hi')] })
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('X-Session-Id')).toBe(id)
    expect(result.body).toMatchObject({
      object: 'chat.completion',
      model: `echo#${tag}`,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Echo: Hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    })
    expect(result.body.id).toMatch(/^chatcmpl-/)
    expect(shown(await wholeLog(id))).toEqual(['system:Be brief.', 'user:Hi', 'assistant:Echo: Hi'])
  })

  it('stores each message once whether the client resends the whole history or only what is new', async () => {
    const id = newSessionId()
    const tag = newTag()
    const history: unknown[] = []
    for (const text of ['one', 'two', 'three']) {
      history.push(u(text))
      const result = await complete(id, { model: `echo#${tag}`, messages: history })
      history.push(result.body.choices[0].message)
    }
    await complete(id, { model: `echo#${tag}`, messages: [u('four')] })
    expect(shown(await wholeLog(id))).toEqual([
      'user:one',
      'assistant:Echo: one',
      'user:two',
      'assistant:Echo: two',
      'user:three',
      'assistant:Echo: three',
      'user:four',
      'assistant:Echo: four',
    ])
    // The model saw the history once, from the session: not twice.
    const sent = (await upstreamRequests(tag)).at(-2)!.body.messages
    expect(sent.map((m) => m.content)).toEqual(['one', 'Echo: one', 'two', 'Echo: two', 'three'])
  })

  it('answers a resent request from the stored reply, without calling the model', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await complete(id, { model: `echo#${tag}`, messages: [u('one')] })
    const body = { model: `echo#${tag}`, messages: [u('one'), first.body.choices[0].message, u('two')] }
    const second = await complete(id, body)
    const again = await complete(id, body)
    expect(again.body.choices).toEqual(second.body.choices)
    expect(again.body.id).toBe(second.body.id)
    expect(again.body.usage).toEqual(second.body.usage)
    expect(await upstreamRequests(tag)).toHaveLength(2)
    expect(await wholeLog(id)).toHaveLength(4)
  })

  it('with X-On-Diverge: reject, refuses an edited history (409 history_diverged) and a request with nothing new (400), writing nothing', async () => {
    const id = newSessionId()
    await complete(id, { model: 'echo', messages: [u('one')] })
    const before = await wholeLog(id)
    const diverged = await complete(
      id,
      { model: 'echo', messages: [u('one'), a('something else'), u('two')] },
      { 'X-On-Diverge': 'reject' },
    )
    expectError(diverged, 409, 'history_diverged')
    expect(diverged.body.error.message).toContain('messages[1]')
    expectError(await complete(id, { model: 'echo', messages: [u('one'), a('Echo: one')] }), 400, 'invalid_request')
    expect(await wholeLog(id)).toEqual(before)
  })

  it('seeds a new session with the history a client brings, tool results grouped into one event', async () => {
    const id = newSessionId()
    const result = await complete(id, {
      model: 'echo',
      messages: [
        { role: 'developer', content: 'You help with weather.' },
        u('Weather in Paris and Rome?'),
        a(null, [wireCall('s1'), wireCall('s2', '{"city":"Rome"}')]),
        { role: 'tool', tool_call_id: 's1', content: '18°C' },
        { role: 'tool', tool_call_id: 's2', content: '24°C' },
        a('Paris 18°C, Rome 24°C.'),
        u('And tomorrow?'),
      ],
    })
    expect(result.status, result.text).toBe(200)
    const log = await wholeLog(id)
    expect(log.map((e) => e.message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant'])
    expect(log[3].message.toolResponses).toEqual([
      { id: 's1', name: 'get_weather', data: '18°C' },
      { id: 's2', name: 'get_weather', data: '24°C' },
    ])
  })

  it('seeds a new session with a history longer than the context: stored first, compacted, the last message answered', async () => {
    const id = newSessionId()
    const tag = newTag()
    const history = Array.from({ length: 2_000 }, (_, i) =>
      i % 2 ? a(`reply ${i} about the rollout plan`) : u(`question ${i} about the rollout plan`),
    )
    const result = await complete(id, { model: `echo#${tag}`, messages: [...history, u('And now?')] })
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.body.choices[0].message.content).toBe('Echo: And now?')
    // Nothing lost: every message the client brought is in the log, in order, then the reply.
    const log = await wholeLog(id)
    const messages = log.filter((e) => e.type === 'MESSAGE' && !e.synthetic)
    expect(shown(messages)).toEqual([...shown(history.map((m) => ({ message: m }))), 'user:And now?', 'assistant:Echo: And now?'])
    // The history was compacted to fit: the prompt the model got was inside its context.
    const compactions = log.filter((e) => e.type === 'COMPACTION')
    expect(compactions.length).toBeGreaterThan(0)
    expect(compactions.every((e) => e.seq < messages.at(-2).seq)).toBe(true)
    const asked = (await upstreamRequests(tag)).filter((r) => r.body.messages.at(-1)?.content === 'And now?')
    expect(asked).toHaveLength(1)
    expect(asked[0]!.body.messages.length).toBeLessThan(2_000)
    // The same request again is the retry it is: the stored reply, no new events, no model call.
    const again = await complete(id, { model: `echo#${tag}`, messages: [...history, u('And now?')] })
    expect(again.body.choices[0].message.content).toBe('Echo: And now?')
    expect((await wholeLog(id)).length).toBe(log.length)
    expect((await upstreamRequests(tag)).filter((r) => r.body.messages.at(-1)?.content === 'And now?')).toHaveLength(1)
  })

  it('a seed whose last message alone does not fit the context: a 413, and nothing is written', async () => {
    const id = newSessionId()
    const history = Array.from({ length: 200 }, (_, i) => (i % 2 ? a(`reply ${i}`) : u(`question ${i}`)))
    const huge = u('word '.repeat(20_000))
    const result = await complete(id, { model: 'echo', messages: [...history, huge] })
    expectError(result, 413, 'context_overflow')
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })

  it('runs a tool loop: tool_calls with finish_reason tool_calls, then the results as tool messages', async () => {
    const id = newSessionId()
    const tag = newTag()
    const ask = await complete(id, { model: `agent-c1#${tag}`, tools: [weather], messages: [u('Weather?')] })
    expect(ask.body.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather' } }],
      },
    })
    const history = [u('Weather?'), ask.body.choices[0].message, { role: 'tool', tool_call_id: 'c1', content: 'sunny' }]
    const done = await complete(id, { model: `agent-c1#${tag}`, tools: [weather], messages: history })
    expect(done.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Results: sunny' } })
    expect((await wholeLog(id)).map((e) => e.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    // Sent again: the stored answer.
    const again = await complete(id, { model: `agent-c1#${tag}`, tools: [weather], messages: history })
    expect(again.body.choices[0].message.content).toBe('Results: sunny')
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('streams chat.completion.chunk frames: role, content pieces, the finish, usage when asked, [DONE]', async () => {
    const id = newSessionId()
    const result = await complete(id, {
      model: 'echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [u('stream this please')],
    })
    expect(result.headers.get('Content-Type')).toContain('text/event-stream')
    const chunks = chunksOf(result)
    expect(chunks.at(-1)).toBe('[DONE]')
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' })
    const text = chunks
      .slice(1, -3)
      .map((c) => c.choices[0].delta.content)
      .join('')
    expect(text).toBe('Echo: stream this please')
    expect(chunks.at(-3).choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' })
    expect(chunks.at(-2)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } })
    expect(new Set(chunks.slice(0, -1).map((c) => c.id)).size).toBe(1)
    expect((await wholeLog(id)).at(-1).message.content).toBe('Echo: stream this please')
  })

  it('streams tool calls as deltas with index, id, type, name and arguments', async () => {
    const result = await complete(newSessionId(), { model: 'tools-_,c2', stream: true, tools: [weather], messages: [u('Go')] })
    const chunks = chunksOf(result)
    const calls = chunks.flatMap((c) => (c === '[DONE]' ? [] : (c.choices[0]?.delta.tool_calls ?? [])))
    expect(calls.map((c: { index: number }) => c.index)).toEqual([0, 1])
    expect(calls[0].id).toMatch(/^call_/)
    expect(calls[1]).toEqual({ index: 1, id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"n":1}' } })
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls')
  })

  it('a streamed retry streams the stored reply; an upstream failure after the first chunk is an error frame, then [DONE]', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await complete(id, { model: `echo#${tag}`, messages: [u('one')] })
    const body = { model: `echo#${tag}`, stream: true, messages: [u('one'), first.body.choices[0].message, u('two')] }
    await complete(id, body)
    const again = chunksOf(await complete(id, body))
    expect(again[1].choices[0].delta.content).toBe('Echo: two')
    expect(again.at(-2).choices[0].finish_reason).toBe('stop')
    expect(await upstreamRequests(tag)).toHaveLength(2)

    const cut = chunksOf(await complete(newSessionId(), { model: 'cut', stream: true, messages: [u('this will break off')] }))
    expect(cut.at(-1)).toBe('[DONE]')
    expect(cut.at(-2)).toMatchObject({ error: { code: 'upstream_error' } })
  })

  it('tool messages follow the toolResults rules, named by their place in messages', async () => {
    const id = newSessionId()
    await complete(id, { model: 'agent-k1,k2', tools: [weather], messages: [u('Two cities')] })
    const result = (id2: string, content = 'x') => ({ role: 'tool', tool_call_id: id2, content })
    const notPending = await complete(id, { model: 'agent-x', messages: [result('zz')] })
    expectError(notPending, 400, 'invalid_request')
    expect(notPending.body.error.message).toContain('messages[0].tool_call_id')
    expectError(await complete(id, { model: 'agent-x', messages: [result('k1')] }), 409, 'tool_results_incomplete')
    const stray = await complete(id, { model: 'agent-x', messages: [result('k1'), result('k2'), u('and'), result('k1')] })
    expectError(stray, 400, 'invalid_request')
    expect(stray.body.error.message).toContain('messages[3]')
    expect(await wholeLog(id)).toHaveLength(2)
    const done = await complete(id, { model: 'agent-x', messages: [result('k1', 'a'), result('k2', 'b')] })
    expect(done.body.choices[0].message.content).toBe('Results: a | b')
  })

  it('an Idempotency-Key repeats the first answer; the same key with other messages is a 409', async () => {
    const id = newSessionId()
    const tag = newTag()
    const headers = { 'Idempotency-Key': 'req-1' }
    const first = await complete(id, { model: `echo#${tag}`, messages: [u('once')] }, headers)
    const again = await complete(id, { model: `echo#${tag}`, messages: [u('once')] }, headers)
    expect(again.body.choices).toEqual(first.body.choices)
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expectError(await complete(id, { model: 'echo', messages: [u('other')] }, headers), 409, 'id_conflict')
    expect(await wholeLog(id)).toHaveLength(2)
  })

  it('400s name the field: the session, refused fields and parts, role function', async () => {
    const missing = await complete(null, { model: 'echo', messages: [u('x')] })
    expectError(missing, 400, 'invalid_request')
    expect(missing.body.error.message).toContain('X-Session-Id')
    const id = newSessionId()
    const bad: [Record<string, unknown>, string][] = [
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ top_logprobs: 2 }, 'top_logprobs'],
      [{ audio: { voice: 'alloy' } }, 'audio'],
      [{ modalities: ['text', 'audio'] }, 'modalities'],
      [{ prediction: { type: 'content', content: 'x' } }, 'prediction'],
      [
        { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] },
        'messages[0].content[0].type',
      ],
      [
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        'messages[0].content[0].image_url.url',
      ],
      [{ messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role'],
      [{ messages: [] }, 'messages'],
      [{ temperature: 5 }, 'temperature'],
    ]
    for (const [fields, path] of bad) {
      const result = await complete(id, { model: 'echo', messages: [u('x')], ...fields })
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(fields)).toContain(path)
      expect(result.headers.get('X-Session-Id')).toBe(id)
    }
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
  })

  it('takes text parts joined with a newline, the session from the body, and ignores fields it does not know', async () => {
    const id = newSessionId()
    const result = await complete(null, {
      model: 'echo',
      session_id: id,
      user: 'someone',
      metadata: { a: 1 },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'line one' },
            { type: 'text', text: 'line two' },
          ],
        },
      ],
    })
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('X-Session-Id')).toBe(id)
    expect((await wholeLog(id))[0].message.content).toBe('line one\nline two')
  })

  it('a new message while calls are pending closes them as interrupted, as on /turns', async () => {
    const id = newSessionId()
    await append(id, [
      user('Weather?'),
      { message: { role: 'assistant', content: null, toolCalls: [{ id: 'p1', name: 'get_weather', arguments: '{}' }] } },
    ])
    const result = await complete(id, { model: 'echo', messages: [u('Never mind')] })
    expect(result.status, result.text).toBe(200)
    const log = await wholeLog(id)
    expect(log.map((e) => e.message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant'])
    expect(log[2].metadata).toEqual({ interrupted: true })
  })
})

describe('the request’s model decides the budget', () => {
  it('a history that fits the default context is compacted first for a model with a small MODEL_CONTEXT_TOKENS entry', async () => {
    // The test Worker sets MODEL_CONTEXT_TOKENS = {"echo#small": 2048} (vitest.config.ts).
    const big = newSessionId()
    const small = newSessionId()
    const words = 'plenty of words in this sentence '.repeat(90)
    for (const id of [big, small])
      for (let i = 0; i < 4; i++)
        await append(id, [user(`${i} ${words}`), { message: { role: 'assistant', content: `ok ${i}` } }])
    await complete(big, { model: 'echo', messages: [u('Next?')] })
    await complete(small, { model: 'echo#small', messages: [u('Next?')] })
    const compactions = async (id: string) => (await wholeLog(id)).filter((e) => e.type === 'COMPACTION').length
    expect(await compactions(big)).toBe(0)
    expect(await compactions(small)).toBeGreaterThan(0)
  })
})

describe('GET /v1/models', () => {
  it('lists the configured chat model', async () => {
    const result = await call('GET', '/v1/models')
    expect(result.status).toBe(200)
    expect(result.body).toEqual({
      object: 'list',
      data: [{ id: expect.any(String), object: 'model', owned_by: 'durable-sessions' }],
    })
    expectError(await call('GET', '/v1/models', { user: null }), 401, 'unauthorized')
  })
})
