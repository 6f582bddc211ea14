import { describe, expect, it } from 'vitest'
import { call, newSessionId, newTag, parseSSE, upstreamRequests, wholeLog } from '../helpers'
import { a, expectAnthropicError, send, shown, text, u, weather } from '../support/messages-door'

describe('POST /v1/messages', () => {
  it('answers a message, creates the session and stores the system prompt, the question and the reply', async () => {
    const id = newSessionId()
    const tag = newTag()
    const result = await send(id, { model: `echo#${tag}`, system: 'Be brief.', messages: [u('Hi')] })
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('X-Session-Id')).toBe(id)
    expect(result.headers.get('request-id')).toMatch(/.+/)
    expect(result.body).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'assistant',
      model: `echo#${tag}`,
      content: [{ type: 'text', text: 'Echo: Hi' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    })
    const log = await wholeLog(id)
    expect(shown(log)).toEqual(['system:Be brief.', 'user:Hi', 'assistant:Echo: Hi'])
    expect(result.body.id).toBe(`msg_${log.at(-1).id}`)
    // input_tokens is what the upstream read: the prompt it was sent.
    const [sent] = await upstreamRequests(tag)
    expect(result.body.usage.input_tokens).toBe(sent!.usage!.prompt_tokens)
    expect(sent!.body.max_tokens).toBe(256)
  })

  it('stores each message once whether the client resends its history (as blocks, with cache markers) or only what is new', async () => {
    const id = newSessionId()
    const tag = newTag()
    const history: unknown[] = []
    for (const question of ['one', 'two']) {
      history.push(u([text(question, { cache_control: { type: 'ephemeral' } })]))
      const result = await send(id, {
        model: `echo#${tag}`,
        system: [text('x-anthropic-billing-header: cc_version=2'), text('Be brief.')],
        messages: history,
      })
      expect(result.status, result.text).toBe(200)
      history.push(a(result.body.content))
    }
    await send(id, { model: `echo#${tag}`, system: 'Be brief.', messages: [u('three')] })
    expect(shown(await wholeLog(id))).toEqual([
      'system:Be brief.',
      'user:one',
      'assistant:Echo: one',
      'user:two',
      'assistant:Echo: two',
      'user:three',
      'assistant:Echo: three',
    ])
    // The billing line is not part of the prompt: the model was sent the system prompt without it.
    const sent = await upstreamRequests(tag)
    expect(sent.map((request) => request.body.messages[0])).toEqual(Array(3).fill({ role: 'system', content: 'Be brief.' }))
  })

  it('a tool round trip: tool_use blocks out, tool_result blocks back, each stored as the session’s tool loop', async () => {
    const id = newSessionId()
    const tag = newTag()
    const messages: unknown[] = [u('Weather in Paris?')]
    const asked = await send(id, { model: `agent-w1#${tag}`, tools: [weather], messages })
    expect(asked.status, asked.text).toBe(200)
    expect(asked.body.stop_reason).toBe('tool_use')
    expect(asked.body.content).toEqual([{ type: 'tool_use', id: 'w1', name: 'get_weather', input: { n: 0 } }])
    // The tools went up as function tools.
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_weather', description: 'The weather in a city', parameters: weather.input_schema },
      },
    ])
    messages.push(a(asked.body.content), u([{ type: 'tool_result', tool_use_id: 'w1', content: [text('18°C, sunny')] }]))
    const answered = await send(id, { model: `agent-w1#${tag}`, tools: [weather], messages })
    expect(answered.body.content).toEqual([{ type: 'text', text: 'Results: 18°C, sunny' }])
    expect(answered.body.stop_reason).toBe('end_turn')
    expect(shown(await wholeLog(id))).toEqual([
      'user:Weather in Paris?',
      'assistant:calls w1({"n":0})',
      'tool:w1=18°C, sunny',
      'assistant:Results: 18°C, sunny',
    ])
  })

  it('a tool_result with is_error is stored as the tool’s error (toolErrors), continued or seeded', async () => {
    const id = newSessionId()
    const tag = newTag()
    const asked = await send(id, { model: `agent-w1#${tag}`, tools: [weather], messages: [u('Weather?')] })
    const failed = { type: 'tool_result', tool_use_id: 'w1', content: 'no network', is_error: true }
    await send(id, { model: `agent-w1#${tag}`, tools: [weather], messages: [u('Weather?'), a(asked.body.content), u([failed])] })
    const continued = (await wholeLog(id)).find((event) => event.message.role === 'tool')
    expect(continued.metadata).toEqual({ toolErrors: ['w1'] })
    // A client seeding a new session with such a history: the same.
    const seeded = newSessionId()
    const history = [
      u('Weather?'),
      a([{ type: 'tool_use', id: 'w9', name: 'get_weather', input: {} }]),
      u([{ ...failed, tool_use_id: 'w9' }]),
    ]
    const result = await send(seeded, {
      model: 'echo',
      tools: [weather],
      messages: [...history, a('It failed.'), u('Try again?')],
    })
    expect(result.status, result.text).toBe(200)
    const tool = (await wholeLog(seeded)).find((event) => event.message.role === 'tool')
    expect(tool.metadata).toEqual({ toolErrors: ['w9'] })
    expect(tool.message.toolResponses).toEqual([{ id: 'w9', name: 'get_weather', data: 'no network' }])
  })

  it('shows tool ids outside Anthropic’s pattern made safe, and takes them back; the log keeps the originals', async () => {
    const id = newSessionId()
    const tag = newTag()
    const odd = 'functions.get_weather:0'
    const messages: unknown[] = [u('Weather?')]
    const asked = await send(id, { model: `agent-${odd}#${tag}`, tools: [weather], messages })
    const shownId = asked.body.content[0].id
    expect(shownId).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(shownId).not.toBe(odd)
    // The client sends its history back as it was shown, with the result named by the shown id.
    messages.push(a(asked.body.content), u([{ type: 'tool_result', tool_use_id: shownId, content: 'sunny' }]))
    const answered = await send(id, { model: `agent-${odd}#${tag}`, tools: [weather], messages })
    expect(answered.status, answered.text).toBe(200)
    expect(answered.headers.get('X-Rewound')).toBeNull()
    expect(answered.body.content).toEqual([{ type: 'text', text: 'Results: sunny' }])
    expect(shown(await wholeLog(id))).toEqual([
      'user:Weather?',
      `assistant:calls ${odd}({"n":0})`,
      `tool:${odd}=sunny`,
      'assistant:Results: sunny',
    ])
    // Streamed (on a session of its own: an id the session has used is never reused), the same id shown.
    const streamed = parseSSE(
      (await send(newSessionId(), { model: `tools-${odd}#${newTag()}`, stream: true, tools: [weather], messages: [u('Again?')] }))
        .text,
    )
    expect(streamed.find((f) => f.event === 'content_block_start')!.data.content_block.id).toBe(shownId)
  })

  it('a result for a call that is not pending is a 400 naming its block; results with nothing pending a 409', async () => {
    const id = newSessionId()
    const tag = newTag()
    await send(id, { model: `agent-w1#${tag}`, tools: [weather], messages: [u('Weather?')] })
    const result = await send(id, {
      model: `agent-w1#${tag}`,
      tools: [weather],
      messages: [u([{ type: 'tool_result', tool_use_id: 'nope', content: 'x' }])],
    })
    expectAnthropicError(result, 400, 'invalid_request_error', /^messages\[0\]\.content\[0\]\.tool_use_id/)
    const other = newSessionId()
    await send(other, { model: 'echo', messages: [u('Hi')] })
    const nothingPending = await send(other, {
      model: 'echo',
      messages: [u([{ type: 'tool_result', tool_use_id: 'w1', content: 'x' }])],
    })
    expectAnthropicError(nothingPending, 409, 'invalid_request_error', /no tool calls waiting/)
  })

  it('streams the exact event sequence: message_start, ping, a text block, message_delta, message_stop', async () => {
    const id = newSessionId()
    const tag = newTag()
    const result = await send(id, { model: `echo#${tag}`, stream: true, messages: [u('Tell me')] })
    expect(result.status).toBe(200)
    expect(result.headers.get('Content-Type')).toMatch(/^text\/event-stream/)
    const frames = parseSSE(result.text)
    for (const frame of frames) expect(frame.data.type).toBe(frame.event)
    const names = frames.map((frame) => frame.event)
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start'])
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop'])
    expect(new Set(names.slice(3, -3))).toEqual(new Set(['content_block_delta']))
    const streamed = frames
      .filter((frame) => frame.event === 'content_block_delta')
      .map((frame) => frame.data.delta.text)
      .join('')
    expect(streamed).toBe('Echo: Tell me')
    const start = frames[0]!.data.message
    expect(start).toMatchObject({ type: 'message', role: 'assistant', content: [], stop_reason: null })
    const delta = frames.at(-2)!.data
    expect(delta.delta).toEqual({ stop_reason: 'end_turn', stop_sequence: null })
    const [sent] = await upstreamRequests(tag)
    expect(delta.usage.input_tokens).toBe(sent!.usage!.prompt_tokens)
    // The streamed message has the id of the reply it is stored as: a retry answers the same one.
    const log = await wholeLog(id)
    expect(start.id).toBe(`msg_${log.at(-1).id}`)
  })

  it('streams tool calls as tool_use blocks with their input as one input_json_delta', async () => {
    const id = newSessionId()
    const tag = newTag()
    const result = await send(id, { model: `tools-c1,c2#${tag}`, stream: true, tools: [weather], messages: [u('Go')] })
    const frames = parseSSE(result.text).filter((frame) => frame.event.startsWith('content_block'))
    expect(frames.map((frame) => [frame.event, frame.data.index])).toEqual([
      ['content_block_start', 0],
      ['content_block_delta', 0],
      ['content_block_stop', 0],
      ['content_block_start', 1],
      ['content_block_delta', 1],
      ['content_block_stop', 1],
    ])
    expect(frames[0]!.data.content_block).toEqual({ type: 'tool_use', id: 'c1', name: 'get_weather', input: {} })
    expect(JSON.parse(frames[4]!.data.delta.partial_json)).toEqual({ n: 1 })
    expect(parseSSE(result.text).at(-2)!.data.delta.stop_reason).toBe('tool_use')
  })

  it('a retry answers the stored message, same id, without calling the model; streamed too', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await send(id, { model: `echo#${tag}`, messages: [u('Hi')] })
    const again = await send(id, { model: `echo#${tag}`, messages: [u('Hi'), a(first.body.content), u('More')] })
    const retried = await send(id, { model: `echo#${tag}`, messages: [u('Hi'), a(first.body.content), u('More')] })
    expect(retried.body).toEqual(again.body)
    const streamed = parseSSE(
      (await send(id, { model: `echo#${tag}`, stream: true, messages: [u('Hi'), a(first.body.content), u('More')] })).text,
    )
    expect(streamed[0]!.data.message.id).toBe(again.body.id)
    expect(streamed.find((frame) => frame.event === 'content_block_delta')!.data.delta.text).toBe('Echo: More')
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('sends max_tokens as given; the fit keeps at most half the model’s window for the reply', async () => {
    const id = newSessionId()
    const tag = newTag()
    // Claude Code asks for 128k tokens of reply room; the model's window here is 8k.
    const result = await send(id, { model: `echo#${tag}`, max_tokens: 128_000, messages: [u('Hi')] })
    expect(result.status, result.text).toBe(200)
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.max_tokens).toBe(128_000)
    // The chat door keeps the room asked for: the same request cannot fit there.
    const chat = await call('POST', '/v1/chat/completions', {
      body: { model: 'echo', max_tokens: 128_000, messages: [u('Hi')] },
      headers: { 'X-Session-Id': newSessionId() },
    })
    expect(chat.status).toBe(413)
  })

  it('keeps an inline system message in place: stored as inline, sent where it is, matched when resent', async () => {
    const id = newSessionId()
    const tag = newTag()
    const env = { role: 'system', content: [text('cwd: /repo')] }
    const first = await send(id, { model: `echo#${tag}`, system: 'You code.', messages: [u('Fix it'), env] })
    expect(first.status, first.text).toBe(200)
    const second = await send(id, {
      model: `echo#${tag}`,
      system: 'You code.',
      messages: [u('Fix it'), { role: 'system', content: 'cwd: /repo' }, a(first.body.content), u('Thanks')],
    })
    expect(second.status, second.text).toBe(200)
    expect(shown(await wholeLog(id))).toEqual([
      'system:You code.',
      'user:Fix it',
      'system(inline):cwd: /repo',
      'assistant:Echo: Fix it',
      'user:Thanks',
      'assistant:Echo: Thanks',
    ])
    const sent = await upstreamRequests(tag)
    expect(sent[1]!.body.messages.map((m) => `${m.role}:${m.content}`)).toEqual([
      'system:You code.',
      'user:Fix it',
      'system:cwd: /repo',
      'assistant:Echo: Fix it',
      'user:Thanks',
    ])
    // The session's system prompt is still its own: the inline message did not replace it.
    const context = await call('GET', `/v1/sessions/${id}/view`)
    expect(context.body.events[0].message).toEqual({ role: 'system', content: 'You code.' })
  })
})
