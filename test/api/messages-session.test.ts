import { describe, expect, it } from 'vitest'
import {
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
import { a, expectAnthropicError, send, shown, text, u } from '../support/messages-door'

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
    const results = { type: 'search_result', source: 'https://example.com', title: 't', content: [text('x')] }
    expectAnthropicError(
      await send(id, { model: 'echo', messages: [u([text('look'), results])] }),
      400,
      'invalid_request_error',
      /messages\[0\]\.content\[1\]\.type.*search_result/,
    )
    // An image whose bytes are not the image it claims is refused by its field.
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }
    expectAnthropicError(
      await send(id, { model: 'echo', messages: [u([text('look'), image])] }),
      400,
      'invalid_request_error',
      /messages\[0\]\.content\[1\]\.source/,
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

  it('tells the client not to send again (x-should-retry: false) what would fail again: every 4xx but 408 and 429', async () => {
    const id = newSessionId()
    const noRetry = (result: { status: number; headers: Headers }) => [result.status, result.headers.get('x-should-retry')]
    const noMax = await call('POST', '/v1/messages', {
      body: { model: 'echo', messages: [u('x')] },
      headers: { 'X-Session-Id': id },
    })
    expect(noRetry(noMax)).toEqual([400, 'false'])
    const noToken = await send(id, { model: 'echo', messages: [u('x')] }, { Authorization: 'Bearer nope' })
    expect(noRetry(noToken)).toEqual([401, 'false'])
    expect((await send(id, { model: 'echo', messages: [u('one')] })).status).toBe(200)
    // The SDKs retry a 409 unless told not to: a diverged history refused is refused again.
    const diverged = await send(
      id,
      { model: 'echo', messages: [u('one'), a('Not what you said.'), u('two')] },
      {
        'X-On-Diverge': 'reject',
      },
    )
    expectAnthropicError(diverged, 409, 'invalid_request_error')
    expect(noRetry(diverged)).toEqual([409, 'false'])
    const tooLong = await send(id, { model: 'echo', messages: [u('word '.repeat(40_000))], max_tokens: 100 })
    expect(noRetry(tooLong)).toEqual([400, 'false'])
    // What may succeed when sent again says nothing: a rate limit, an overload, an upstream failure.
    expect(noRetry(await send(newSessionId(), { model: `claude-limited#${newTag()}`, messages: [u('x')] }))).toEqual([429, null])
    expect(noRetry(await send(newSessionId(), { model: `claude-overloaded#${newTag()}`, messages: [u('x')] }))).toEqual([
      529,
      null,
    ])
    expect(noRetry(await send(newSessionId(), { model: `fail-500#${newTag()}`, messages: [u('x')] }))).toEqual([502, null])
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
    expect(alone.body).toEqual({ input_tokens: expect.any(Number), context_management: null })
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
