import { describe, expect, it } from 'vitest'
import {
  type Call,
  call,
  newSessionId,
  newTag,
  parseSSE,
  releaseUpstream,
  tokenFor,
  untilUpstreamReceived,
  upstreamRequests,
  wholeLog,
} from '../helpers'

/** A Messages request as an Anthropic client sends it: the version header, the session in `X-Session-Id` (unless `session` is null). */
const send = (session: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/messages', {
    body: { max_tokens: 256, ...body },
    headers: { 'anthropic-version': '2023-06-01', ...(session === null ? {} : { 'X-Session-Id': session }), ...headers },
  })
const u = (content: unknown) => ({ role: 'user', content })
const a = (content: unknown) => ({ role: 'assistant', content })
const text = (value: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: value, ...extra })
const weather = { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object', properties: {} } }
const shown = (log: any[]) =>
  log
    .filter((e) => e.type === 'MESSAGE')
    .map(({ message: m, metadata }) => {
      if (m.toolCalls) return `${m.role}:calls ${m.toolCalls.map((c: any) => `${c.id}(${c.arguments})`).join(',')}`
      if (m.toolResponses) return `${m.role}:${m.toolResponses.map((r: any) => `${r.id}=${r.data}`).join(',')}`
      return `${m.role}${metadata.inline ? '(inline)' : ''}:${m.content ?? ''}`
    })

/** An Anthropic error answer: its status, `{"type": "error", "error": {"type", "message"}}` and nothing else. */
function expectAnthropicError(result: Call, status: number, type: string, message?: RegExp) {
  expect(result.status, result.text).toBe(status)
  expect(Object.keys(result.body).sort()).toEqual(['error', 'type'])
  expect(result.body.type).toBe('error')
  expect(result.body.error.type).toBe(type)
  if (message) expect(result.body.error.message).toMatch(message)
}

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

describe('the session a Messages request is about', () => {
  it('is x-claude-code-session-id without X-Session-Id, else the session_id in metadata.user_id (JSON or the older form)', async () => {
    const base = newSessionId('cc')
    const byHeader = await send(null, { model: 'echo', messages: [u('by header')] }, { 'x-claude-code-session-id': `${base}-h` })
    expect(byHeader.headers.get('X-Session-Id')).toBe(`${base}-h`)
    const json = JSON.stringify({ device_id: 'd', account_uuid: '', session_id: `${base}-j` })
    const byJson = await send(null, { model: 'echo', metadata: { user_id: json }, messages: [u('by json')] })
    expect(byJson.headers.get('X-Session-Id')).toBe(`${base}-j`)
    const older = `user_abc123_account__session_${base}-o`
    const byOlder = await send(null, { model: 'echo', metadata: { user_id: older }, messages: [u('by older')] })
    expect(byOlder.headers.get('X-Session-Id')).toBe(`${base}-o`)
    expect(shown(await wholeLog(`${base}-j`))).toEqual(['user:by json', 'assistant:Echo: by json'])
  })

  it('none → 400 naming the header; a subagent’s requests go to a session of their own that names its parent', async () => {
    expectAnthropicError(await send(null, { model: 'echo', messages: [u('Hi')] }), 400, 'invalid_request_error', /X-Session-Id/)
    const main = newSessionId('main')
    await send(main, { model: 'echo', messages: [u('main question')] })
    const sub = await send(
      null,
      { model: 'echo', messages: [u('explore')] },
      { 'x-claude-code-session-id': main, 'x-claude-code-agent-id': 'agent7' },
    )
    expect(sub.headers.get('X-Session-Id')).toBe(`${main}:agent7`)
    expect(shown(await wholeLog(main))).toEqual(['user:main question', 'assistant:Echo: main question'])
    expect(shown(await wholeLog(`${main}:agent7`))).toEqual(['user:explore', 'assistant:Echo: explore'])
    const session = await call('GET', `/v1/sessions/${main}:agent7`)
    expect(session.body.metadata).toEqual({ parentSessionId: main })
  })
})

describe('requests that are not part of the conversation', () => {
  /** A session with a system prompt and one answered turn. */
  async function conversation() {
    const id = newSessionId()
    await send(id, { model: 'echo', system: 'You code.', messages: [u('Fix the bug')] })
    return { id, log: shown(await wholeLog(id)) }
  }

  it('x-claude-code-request-class auxiliary or compaction: sent as it is, answered, the session untouched (X-Stored: false)', async () => {
    const { id, log } = await conversation()
    for (const requestClass of ['auxiliary', 'compaction']) {
      const tag = newTag()
      const history = [u('Fix the bug'), a('Done.'), u('Summarize this conversation')]
      const result = await send(
        id,
        { model: `echo#${tag}`, system: 'You summarize.', messages: history },
        {
          'x-claude-code-request-class': requestClass,
        },
      )
      expect(result.status, result.text).toBe(200)
      expect(result.headers.get('X-Stored')).toBe('false')
      expect(result.body.content).toEqual([{ type: 'text', text: 'Echo: Summarize this conversation' }])
      const [sent] = await upstreamRequests(tag)
      expect(sent!.body.messages.map((m) => `${m.role}:${m.content}`)).toEqual([
        'system:You summarize.',
        'user:Fix the bug',
        'assistant:Done.',
        'user:Summarize this conversation',
      ])
    }
    const streamed = await send(
      id,
      { model: 'echo', stream: true, system: 'x', messages: [u('A title, please')] },
      { 'x-claude-code-request-class': 'auxiliary' },
    )
    expect(streamed.headers.get('X-Stored')).toBe('false')
    expect(parseSSE(streamed.text).at(-1)!.event).toBe('message_stop')
    expect(shown(await wholeLog(id))).toEqual(log)
  })

  it('an auxiliary request does not wait for the session’s running turn', async () => {
    const { id } = await conversation()
    const held = newTag()
    const running = send(id, { model: `hold#${held}`, system: 'You code.', messages: [u('A long task')] })
    await untilUpstreamReceived(held)
    const auxiliary = await send(
      id,
      { model: 'echo', system: 'x', messages: [u('A title')] },
      { 'x-claude-code-request-class': 'auxiliary' },
    )
    expect(auxiliary.status).toBe(200)
    expect(await releaseUpstream(held)).toBe(1)
    expect((await running).status).toBe(200)
  })

  it('a side conversation — nothing shared with the lineage, another system prompt — is answered unstored', async () => {
    const { id, log } = await conversation()
    const side = await send(id, { model: 'echo', system: 'Write a 3-word title.', messages: [u('Fix the bug in main.ts')] })
    expect(side.status, side.text).toBe(200)
    expect(side.headers.get('X-Stored')).toBe('false')
    expect(shown(await wholeLog(id))).toEqual(log)
    // The same system prompt: only what is new, stored.
    const next = await send(id, { model: 'echo', system: 'You code.', messages: [u('And the tests?')] })
    expect(next.headers.get('X-Stored')).toBeNull()
    expect(shown(await wholeLog(id)).slice(-2)).toEqual(['user:And the tests?', 'assistant:Echo: And the tests?'])
    // A history sharing its start with the lineage is no side conversation, whatever its system prompt.
    const edited = await send(id, {
      model: 'echo',
      system: 'You code well.',
      messages: [u('Fix the bug'), a('Echo: Fix the bug'), u('Edited')],
    })
    expect(edited.headers.get('X-Stored')).toBeNull()
    expect(edited.headers.get('X-Rewound')).toBe('2')
  })
})

describe('the Messages door’s headers and errors', () => {
  it('takes the token from x-api-key, before Authorization when both are sent', async () => {
    const id = newSessionId()
    const good = await tokenFor('alice')
    const byKey = await send(id, { model: 'echo', messages: [u('key')] }, { 'x-api-key': good, Authorization: 'Bearer nope' })
    expect(byKey.status, byKey.text).toBe(200)
    const badKey = await send(
      id,
      { model: 'echo', messages: [u('key')] },
      { 'x-api-key': 'not.a.token', Authorization: `Bearer ${good}` },
    )
    expectAnthropicError(badKey, 401, 'authentication_error')
    const none = await call('POST', '/v1/messages', { user: null, body: { model: 'echo', max_tokens: 5, messages: [u('x')] } })
    expectAnthropicError(none, 401, 'authentication_error')
    expect(none.headers.get('request-id')).toMatch(/.+/)
  })

  it('refuses what it cannot honour with a 400 naming the field, in Anthropic’s shape, writing nothing', async () => {
    const id = newSessionId()
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }
    expectAnthropicError(
      await send(id, { model: 'echo', messages: [u([text('look'), image])] }),
      400,
      'invalid_request_error',
      /messages\[0\]\.content\[1\]\.type.*image/,
    )
    const noMax = await call('POST', '/v1/messages', {
      body: { model: 'echo', messages: [u('x')] },
      headers: { 'X-Session-Id': id },
    })
    expectAnthropicError(noMax, 400, 'invalid_request_error', /max_tokens/)
    expectAnthropicError(
      await send(id, { model: 'echo', messages: [u('x')] }, { 'anthropic-version': '2020-01-01' }),
      400,
      'invalid_request_error',
      /anthropic-version/,
    )
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })

  it('an upstream failure is an api_error; a prompt that cannot fit says "prompt is too long"', async () => {
    const id = newSessionId()
    const failed = await send(id, { model: `fail-400#${newTag()}`, messages: [u('x')] })
    expectAnthropicError(failed, 502, 'api_error')
    const huge = 'word '.repeat(40_000)
    const tooLong = await send(id, { model: 'echo', messages: [u(huge)], max_tokens: 100 })
    expectAnthropicError(tooLong, 400, 'invalid_request_error', /^prompt is too long/)
  })
})

describe('POST /v1/messages/count_tokens', () => {
  it('counts the view plus what is new, writes nothing, and counts a request alone on a session that does not exist', async () => {
    const id = newSessionId()
    const count = (messages: unknown[]) =>
      call('POST', '/v1/messages/count_tokens', {
        body: { model: 'echo', system: 'Be brief.', messages },
        headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': id },
      })
    const alone = await count([u('What is the capital of France?')])
    expect(alone.status, alone.text).toBe(200)
    expect(alone.body).toEqual({ input_tokens: expect.any(Number) })
    expect(alone.body.input_tokens).toBeGreaterThan(5)
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)

    await send(id, { model: 'echo', system: 'Be brief.', messages: [u('A long first question about many things. '.repeat(20))] })
    const before = (await wholeLog(id)).length
    const withView = await count([u('What is the capital of France?')])
    expect(withView.body.input_tokens).toBeGreaterThan(alone.body.input_tokens + 100)
    expect(await wholeLog(id)).toHaveLength(before)
  })
})

describe('GET /v1/models', () => {
  it('answers in Anthropic’s shape when asked with anthropic-version, OpenAI’s otherwise', async () => {
    const anthropic = await call('GET', '/v1/models', { headers: { 'anthropic-version': '2023-06-01' } })
    expect(anthropic.body).toEqual({
      data: [{ type: 'model', id: expect.any(String), display_name: expect.any(String), created_at: expect.any(String) }],
      has_more: false,
      first_id: anthropic.body.data[0].id,
      last_id: anthropic.body.data[0].id,
    })
    const openai = await call('GET', '/v1/models')
    expect(openai.body.object).toBe('list')
  })
})
