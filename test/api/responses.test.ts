import { runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sessionStub } from '../../src/object/address'
import { call, newSessionId, newTag, parseSSE, upstreamRequests, wholeLog } from '../helpers'

const respond = (session: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/responses', { body, headers: { ...(session === null ? {} : { 'X-Session-Id': session }), ...headers } })
const user = (text: string) => ({ role: 'user', content: [{ type: 'input_text', text }] })
const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather',
  parameters: { type: 'object', properties: {} },
}
const shown = (log: any[]) =>
  log.map(({ message: m }) => {
    if (m.toolCalls) return `${m.role}:${m.content ?? ''}|calls ${m.toolCalls.map((c: any) => c.id).join(',')}`
    if (m.toolResponses) return `${m.role}:${m.toolResponses.map((r: any) => `${r.id}=${r.data}`).join(',')}`
    return `${m.role}:${m.content ?? ''}`
  })

/** An error in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`. */
function expectOpenAIError(result: { status: number; body: any; text: string }, status: number, code: string) {
  expect(result.status, result.text).toBe(status)
  expect(Object.keys(result.body)).toEqual(['error'])
  expect(Object.keys(result.body.error).sort()).toEqual(['code', 'message', 'param', 'type'])
  expect(result.body.error.code).toBe(code)
}

describe('POST /v1/responses', () => {
  it('answers a response and stores the instructions, the input and the reply; a retry answers the same ids', async () => {
    const id = newSessionId()
    const tag = newTag()
    const result = await respond(id, { model: `echo#${tag}`, instructions: 'Be brief.', input: 'Hi there' })
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({
      id: expect.stringMatching(/^resp_/),
      object: 'response',
      status: 'completed',
      model: `echo#${tag}`,
      conversation: { id },
      store: true,
      output: [
        {
          id: expect.stringMatching(/^msg_/),
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Echo: Hi there', annotations: [] }],
        },
      ],
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), input_tokens_details: { cached_tokens: 0 } },
    })
    expect(shown(await wholeLog(id))).toEqual(['system:Be brief.', 'user:Hi there', 'assistant:Echo: Hi there'])
    const history = [user('Hi there'), { ...result.body.output[0], type: 'message' }, user('More')]
    const more = await respond(id, { model: `echo#${tag}`, instructions: 'Be brief.', input: history })
    const again = await respond(id, { model: `echo#${tag}`, instructions: 'Be brief.', input: history })
    expect(again.body.id).toBe(more.body.id)
    expect(again.body.output).toEqual(more.body.output)
    expect(await upstreamRequests(tag)).toHaveLength(2)
    expect(await wholeLog(id)).toHaveLength(5)
  })

  it('takes instructions and every system or developer message, wherever it stands, as the system prompt', async () => {
    const id = newSessionId()
    const tag = newTag()
    const input = [
      { role: 'developer', content: 'Base rules.' },
      user('First'),
      { role: 'developer', content: [{ type: 'input_text', text: 'Skills.' }] },
      user('Second'),
    ]
    await respond(id, { model: `echo#${tag}`, instructions: 'Be brief.', input })
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.messages[0]).toEqual({ role: 'system', content: 'Be brief.\n\nBase rules.\n\nSkills.' })
    expect(sent!.body.messages.slice(1).map((m) => m.content)).toEqual(['First', 'Second'])
  })

  it('a tool round trip: function_call items out, function_call_output back; built-in tools left out and named', async () => {
    const id = newSessionId()
    const tag = newTag()
    const tools = [weather, { type: 'web_search' }, { type: 'mcp', server_label: 'docs' }]
    const asked = await respond(id, { model: `agent-w1#${tag}`, tools, input: [user('Weather?')] })
    expect(asked.status, asked.text).toBe(200)
    expect(asked.headers.get('X-Tools-Omitted')).toBe('web_search, docs')
    expect(asked.body.output).toEqual([
      {
        id: expect.stringMatching(/^fc_evt_[0-9a-f]{32}\.0$/),
        type: 'function_call',
        status: 'completed',
        call_id: 'w1',
        name: 'get_weather',
        arguments: '{"n":0}',
      },
    ])
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).tools.map((t: any) => t.function.name)).toEqual(['get_weather'])
    const input = [user('Weather?'), ...asked.body.output, { type: 'function_call_output', call_id: 'w1', output: 'sunny' }]
    const answered = await respond(id, { model: `agent-w1#${tag}`, tools, input })
    expect(answered.body.output[0].content[0].text).toBe('Results: sunny')
    expect(shown(await wholeLog(id))).toEqual([
      'user:Weather?',
      'assistant:|calls w1',
      'tool:w1=sunny',
      'assistant:Results: sunny',
    ])
  })

  it('streams the event sequence with sequence numbers, ending with response.completed', async () => {
    const id = newSessionId()
    const result = await respond(id, { model: 'echo', stream: true, input: 'Stream it' })
    const frames = parseSSE(result.text)
    for (const frame of frames) expect(frame.data.type).toBe(frame.event)
    expect(frames.map((f) => f.data.sequence_number)).toEqual(frames.map((_, i) => i))
    const names = frames.map((f) => f.event)
    expect(names.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ])
    expect(names.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    const completed = frames.at(-1)!.data.response
    expect(completed.output[0].content[0].text).toBe('Echo: Stream it')
    expect(frames[0]!.data.response.id).toBe(completed.id)
    expect(completed.id).toMatch(new RegExp(`^resp_.+\\.${(await wholeLog(id)).at(-1).id}$`))
  })

  it('store: false with no session answers without storing; a conversation that does not exist is a 404; errors in OpenAI’s shape', async () => {
    const unstored = await respond(null, { model: 'echo', store: false, input: 'Just this once' })
    expect(unstored.status, unstored.text).toBe(200)
    expect(unstored.headers.get('X-Stored')).toBeNull()
    expect(unstored.body).toMatchObject({ store: false, conversation: null })
    expectOpenAIError(await respond(null, { model: 'echo', conversation: 'nope-never-made', input: 'x' }), 404, 'not_found')
    const refused = await respond(newSessionId(), {
      model: 'echo',
      input: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    })
    expectOpenAIError(refused, 400, 'unsupported')
    expect(refused.body.error.param).toBe('input[0].content[0].type')
    // A feature the service does not offer beside a plain mistake: the mistake's code.
    const mixed = await respond(newSessionId(), {
      model: 'echo',
      input: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] },
        { role: 'nobody', content: 'x' },
      ],
    })
    expectOpenAIError(mixed, 400, 'invalid_request')
    expect(refused.body.error.type).toBe('invalid_request_error')
  })

  it('previous_response_id goes on from that response: only the new input sent; an older one is a branch', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await respond(id, { model: `echo#${tag}`, input: 'One' })
    const second = await respond(null, { model: `echo#${tag}`, previous_response_id: first.body.id, input: 'Two' })
    expect(second.status, second.text).toBe(200)
    expect(second.body).toMatchObject({ previous_response_id: first.body.id, conversation: { id } })
    const third = await respond(null, { model: `echo#${tag}`, previous_response_id: second.body.id, input: [user('Three')] })
    expect(third.body.output[0].content[0].text).toBe('Echo: Three')
    expect(shown(await wholeLog(id))).toEqual([
      'user:One',
      'assistant:Echo: One',
      'user:Two',
      'assistant:Echo: Two',
      'user:Three',
      'assistant:Echo: Three',
    ])
    const sent = await upstreamRequests(tag)
    expect(sent.at(-1)!.body.messages.map((m) => m.content)).toEqual(['One', 'Echo: One', 'Two', 'Echo: Two', 'Three'])
    // Going on from the first response again: a branch, the view as of it, then the new input.
    const branch = await respond(null, { model: `echo#${tag}`, previous_response_id: first.body.id, input: 'Other two' })
    expect(branch.headers.get('X-Rewound')).toBe('4')
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.events.map((e: any) => e.message.content)).toEqual(['One', 'Echo: One', 'Other two', 'Echo: Other two'])
  })

  it('the same request again with the same previous_response_id (a retry after a lost answer) answers the stored response', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await respond(id, { model: `echo#${tag}`, input: 'One' })
    const request = { model: `echo#${tag}`, previous_response_id: first.body.id, input: 'Two' }
    const second = await respond(null, request)
    const again = await respond(null, request)
    expect(again.status, again.text).toBe(200)
    expect(again.body.id).toBe(second.body.id)
    expect(again.body.output).toEqual(second.body.output)
    expect(again.headers.get('X-Rewound')).toBeNull()
    expect((await upstreamRequests(tag)).length).toBe(2)
    expect(shown(await wholeLog(id))).toEqual(['user:One', 'assistant:Echo: One', 'user:Two', 'assistant:Echo: Two'])
    // With other input it is a branch, as before; asked to regenerate, a new reply.
    const regenerated = await respond(null, request, { 'X-Regenerate': 'true' })
    expect(regenerated.body.id).not.toBe(second.body.id)
    expect(regenerated.headers.get('X-Rewound')).toBe('2')
  })

  it('an unknown previous_response_id is previous_response_not_found, naming it; with conversation a 400', async () => {
    const made = await respond(null, { model: 'echo', previous_response_id: 'resp_nothing', input: 'x' })
    expectOpenAIError(made, 400, 'previous_response_not_found')
    expect(made.body.error.message).toContain('resp_nothing')
    const id = newSessionId()
    const first = await respond(id, { model: 'echo', input: 'One' })
    // Another user's response: their session is not this caller's.
    const other = await call('POST', '/v1/responses', {
      user: 'mallory',
      body: { model: 'echo', previous_response_id: first.body.id, input: 'Steal' },
    })
    expectOpenAIError(other, 400, 'previous_response_not_found')
    const both = await respond(null, { model: 'echo', previous_response_id: first.body.id, conversation: id, input: 'x' })
    expectOpenAIError(both, 400, 'invalid_request')
    expect(shown(await wholeLog(id))).toEqual(['user:One', 'assistant:Echo: One'])
  })

  it('Codex’s session-id header names the session', async () => {
    const id = newSessionId('codex')
    const result = await respond(null, { model: 'echo', store: false, input: 'From Codex' }, { 'session-id': id })
    expect(result.body.conversation).toEqual({ id })
    expect(shown(await wholeLog(id))).toEqual(['user:From Codex', 'assistant:Echo: From Codex'])
  })

  it('Codex’s first request sent again (x-codex-turn-metadata, no retry count) answers the stored reply; a client sending only new input asks again', async () => {
    const id = newSessionId('codex')
    const tag = newTag()
    const codex = { 'session-id': id, 'x-codex-turn-metadata': '{"turn_id":"t1","request_kind":"turn"}' }
    const body = { model: `echo#${tag}`, store: false, input: [user('First from Codex')] }
    const first = await respond(null, body, codex)
    const again = await respond(null, body, codex)
    expect(again.status, again.text).toBe(200)
    expect(again.body.output).toEqual(first.body.output)
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expect(shown(await wholeLog(id))).toEqual(['user:First from Codex', 'assistant:Echo: First from Codex'])
    // Without the header, or where X-Session-Id names the session (runs may share it), the same
    // input is the same question asked again.
    const asked = await respond(id, body)
    expect(asked.status, asked.text).toBe(200)
    expect(await upstreamRequests(tag)).toHaveLength(2)
    expect((await respond(id, body, codex)).status).toBe(200)
    expect(await upstreamRequests(tag)).toHaveLength(3)
  })

  it('item_reference stands for the stored item it names: an assistant message, its calls; one naming nothing is a 400', async () => {
    const id = newSessionId()
    const tag = newTag()
    const asked = await respond(id, { model: `agent-w1#${tag}`, tools: [weather], input: [user('Weather?')] })
    const [call] = asked.body.output
    const input = [
      user('Weather?'),
      { type: 'item_reference', id: call.id },
      { type: 'function_call_output', call_id: 'w1', output: 'rain' },
    ]
    const answered = await respond(id, { model: `agent-w1#${tag}`, tools: [weather], input })
    expect(answered.status, answered.text).toBe(200)
    const reply = answered.body.output[0]
    expect(reply.content[0].text).toBe('Results: rain')
    // The AI SDK's next turn: earlier items by reference only, then the new message.
    const next = [...input, { type: 'item_reference', id: reply.id }, user('Thanks')]
    expect((await respond(id, { model: `echo#${tag}`, input: next })).status).toBe(200)
    expect(shown(await wholeLog(id))).toEqual([
      'user:Weather?',
      'assistant:|calls w1',
      'tool:w1=rain',
      'assistant:Results: rain',
      'user:Thanks',
      'assistant:Echo: Thanks',
    ])
    const unknown = await respond(id, { model: 'echo', input: [...next, { type: 'item_reference', id: 'msg_evt_gone' }] })
    expectOpenAIError(unknown, 400, 'invalid_request')
    expect(unknown.body.error).toMatchObject({
      param: 'input[5].id',
      message: "input[5].id: Item with id 'msg_evt_gone' not found.",
    })
    // Another session's item is not this one's.
    const elsewhere = await respond(newSessionId(), {
      model: 'echo',
      input: [user('Hi'), { type: 'item_reference', id: reply.id }, user('x')],
    })
    expectOpenAIError(elsewhere, 400, 'invalid_request')
  })

  it('keeps reasoning items a client sends with its history as the assistant’s, provider openai', async () => {
    const id = newSessionId()
    const reasoning = {
      type: 'reasoning',
      id: 'rs_abc',
      summary: [{ type: 'summary_text', text: 'Plan.' }],
      encrypted_content: 'gAAAA',
    }
    const input = [user('One'), reasoning, { type: 'message', role: 'assistant', content: 'Two' }, user('Three')]
    expect((await respond(id, { model: 'echo', input })).status).toBe(200)
    const [, assistant] = await wholeLog(id)
    expect(assistant.message).toEqual({
      role: 'assistant',
      content: 'Two',
      reasoning: [
        { provider: 'openai', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'gAAAA' },
      ],
    })
  })
})

describe('GET /v1/responses/{id}', () => {
  it('answers a stored response as it was answered, and its input items in pages', async () => {
    const id = newSessionId()
    const first = await respond(id, { model: 'echo', input: [user('One'), user('Two'), user('Three')] })
    const got = await call('GET', `/v1/responses/${first.body.id}`)
    expect(got.status, got.text).toBe(200)
    expect(got.body).toMatchObject({ id: first.body.id, status: 'completed', output: first.body.output, conversation: { id } })
    const items = await call('GET', `/v1/responses/${first.body.id}/input_items`)
    expect(items.body).toMatchObject({ object: 'list', has_more: false })
    expect(items.body.data.map((item: any) => item.content[0].text)).toEqual(['Three', 'Two', 'One'])
    expect(items.body.first_id).toBe(items.body.data[0].id)
    const page = await call('GET', `/v1/responses/${first.body.id}/input_items?order=asc&limit=1&after=${items.body.data[2].id}`)
    expect(page.body.data.map((item: any) => item.content[0].text)).toEqual(['Two'])
    expect(page.body.has_more).toBe(true)
    // A later response's input is what its request added.
    const second = await respond(id, { model: 'echo', previous_response_id: first.body.id, input: [user('Four')] })
    const later = await call('GET', `/v1/responses/${second.body.id}/input_items`)
    expect(later.body.data.map((item: any) => [item.role, item.content[0].text])).toEqual([['user', 'Four']])
  })

  it('is a 404 in OpenAI’s shape for an id that names no stored response, or another user’s', async () => {
    const id = newSessionId()
    const first = await respond(id, { model: 'echo', input: 'Mine' })
    for (const [path, user] of [
      [`/v1/responses/${first.body.id}`, 'mallory'],
      [`/v1/responses/${first.body.id}/input_items`, 'mallory'],
      ['/v1/responses/resp_nothing', undefined],
      [`/v1/responses/${first.body.id.replace(/\.evt_/, '.evt_0')}`, undefined],
    ] as const) {
      const result = await call('GET', path, user ? { user } : {})
      expectOpenAIError(result, 404, 'not_found')
    }
    expectOpenAIError(await call('GET', `/v1/responses/${first.body.id}/input_items?limit=0`), 400, 'invalid_request')
  })
})

describe('a Responses request that names no session', () => {
  afterEach(() => vi.useRealTimers())
  const day = 24 * 3600_000

  it('gets a session of its own, named in conversation, that expires 30 days after its last write', async () => {
    const owner = `implicit-${newSessionId()}`
    // Date, the service's clock, frozen: each expiry below is exact.
    const start = Math.floor(Date.now() / 1000) * 1000
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(start)
    const first = await call('POST', '/v1/responses', { user: owner, body: { model: 'echo', input: 'Remember me' } })
    expect(first.status, first.text).toBe(200)
    const id = first.body.conversation.id as string
    expect(id).toMatch(/^conv_[0-9a-f]{32}$/)
    expect(first.headers.get('X-Session-Id')).toBe(id)
    const expiry = async () => (await call('GET', `/v1/sessions/${id}`, { user: owner })).body.expiresAt
    expect(await expiry()).toBe(new Date(start + 30 * day).toISOString())
    // Twenty days on, a request going on from the first response writes again: the expiry moves.
    vi.setSystemTime(start + 20 * day)
    const second = await call('POST', '/v1/responses', {
      user: owner,
      body: { model: 'echo', previous_response_id: first.body.id, input: 'Still there?' },
    })
    expect(second.body.conversation).toEqual({ id })
    expect(await expiry()).toBe(new Date(start + 50 * day).toISOString())
    // Past the first expiry: still there, and its alarm reschedules instead of deleting; listed.
    vi.setSystemTime(start + 40 * day)
    await runDurableObjectAlarm(sessionStub(env, owner, id))
    expect((await call('GET', `/v1/sessions/${id}`, { user: owner })).status).toBe(200)
    expect((await call('GET', '/v1/sessions', { user: owner })).body.sessions.map((s: any) => s.id)).toEqual([id])
    // Past the moved one: the alarm wipes it; it is gone.
    vi.setSystemTime(start + 51 * day)
    expect(await runDurableObjectAlarm(sessionStub(env, owner, id))).toBe(true)
    expect((await call('GET', '/v1/sessions', { user: owner })).body.sessions).toEqual([])
    expectOpenAIError(
      await call('POST', '/v1/responses', { user: owner, body: { model: 'echo', conversation: id, input: 'x' } }),
      404,
      'not_found',
    )
  })
})
