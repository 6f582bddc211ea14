import { exports } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import {
  append,
  call,
  deltas,
  expectError,
  newSessionId,
  newTag,
  parseSSE,
  releaseUpstream,
  sseReader,
  tokenFor,
  turn,
  until,
  untilUpstreamReceived,
  upstreamRequests,
  user,
} from '../helpers'

const log = async (id: string) => (await call('GET', `/v1/sessions/${id}/events?limit=1000`)).body.events as any[]

describe('POST /v1/sessions/:id/turns', () => {
  it('calls the model with the latest system message first, the view, then the new message; stores user + assistant', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [
      { message: { role: 'system', content: 'old rules' } },
      user('Weather?'),
      {
        message: {
          role: 'assistant',
          content: null,
          toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' }],
        },
      },
      { message: { role: 'tool', content: null, toolResponses: [{ id: 'call_1', name: 'weather', data: '18C' }] } },
      { message: { role: 'assistant', content: '18C in Paris.' } },
      { message: { role: 'system', content: 'new rules' } },
    ])
    // A model that answers like echo and reports 1234 prompt tokens.
    const result = await turn(id, { content: 'And tomorrow?', model: `usage-1234#${tag}`, compaction: false })
    expect(result.status).toBe(200)
    expect(result.body.reply).toMatchObject({
      seq: 8,
      message: { role: 'assistant', content: 'Echo: And tomorrow?' },
      metadata: { model: `usage-1234#${tag}` },
    })
    expect(result.body.events.map((e: { message: { role: string } }) => e.message.role)).toEqual(['user', 'assistant'])
    // Usage as the upstream reported it: those prompt tokens, and the fake's token per 4 characters of reply (19).
    expect(result.body.usage).toEqual({ promptTokens: 1234, completionTokens: 5, totalTokens: 1239 })
    expect(result.body.compaction).toBeNull()

    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.messages).toEqual([
      { role: 'system', content: 'new rules' },
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
      { role: 'assistant', content: '18C in Paris.' },
      { role: 'user', content: 'And tomorrow?' },
    ])
    expect(sent!.body.max_tokens).toBeGreaterThan(0)
    expect((await log(id)).slice(-2).map((e) => e.message.content)).toEqual(['And tomorrow?', 'Echo: And tomorrow?'])
  })

  it('sends a prompt valid on the wire whatever was appended: a placeholder for an unanswered call, a stray result left out, the log unchanged', async () => {
    const id = newSessionId()
    const tag = newTag()
    const toolCall = (callId: string) => ({
      message: { role: 'assistant', content: null, toolCalls: [{ id: callId, name: 'lookup', arguments: '{}' }] },
    })
    const toolResult = (callId: string, data: string) => ({
      message: { role: 'tool', content: null, toolResponses: [{ id: callId, name: 'lookup', data }] },
    })
    await append(id, [
      toolResult('stray', 'no call for me'),
      user('Look it up'),
      toolCall('c1'),
      user('Never mind'),
      toolResult('c1', 'late'),
    ])
    const result = await turn(id, { content: 'Thanks', model: `echo#${tag}`, compaction: false })
    expect(result.status).toBe(200)
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.messages).toEqual([
      { role: 'user', content: 'Look it up' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      // The stored result comes after a user message: it is moved up to its call, verbatim.
      { role: 'tool', tool_call_id: 'c1', content: 'late' },
      { role: 'user', content: 'Never mind' },
      { role: 'user', content: 'Thanks' },
    ])
    const second = newSessionId()
    await append(second, [user('Look it up'), toolCall('c2'), user('Never mind')])
    await turn(second, { content: 'Thanks', model: `echo#${tag}-2`, compaction: false })
    const [again] = await upstreamRequests(`${tag}-2`)
    expect(again!.body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c2', content: '{"error":"no result was recorded"}' })
    // The log is as appended: the prompt's repair is not stored.
    expect((await log(second)).map((e) => e.message.role)).toEqual(['user', 'assistant', 'user', 'user', 'assistant'])
  })

  it('writes the request system message only when it differs from the latest stored one, and sends it first', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await turn(id, { content: 'Hi', system: 'Be brief.', model: `echo#${tag}`, compaction: false })
    expect(first.body.events.map((e: { message: { role: string } }) => e.message.role)).toEqual(['system', 'user', 'assistant'])
    const same = await turn(id, { content: 'Again', system: 'Be brief.', model: `echo#${tag}`, compaction: false })
    expect(same.body.events.map((e: { message: { role: string } }) => e.message.role)).toEqual(['user', 'assistant'])
    const changed = await turn(id, { content: 'Now?', system: 'Be verbose.', model: `echo#${tag}`, compaction: false })
    expect(changed.body.events[0].message).toEqual({ role: 'system', content: 'Be verbose.' })
    const sent = await upstreamRequests(tag)
    expect(sent.map((r) => r.body.messages[0])).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Be verbose.' },
    ])
    expect(sent[2]!.body.messages.filter((m) => m.role === 'system')).toHaveLength(1)
  })

  it('creates the session for the caller', async () => {
    const id = newSessionId()
    expect((await turn(id, { content: 'hello', compaction: false })).status).toBe(200)
    expect((await call('GET', `/v1/sessions/${id}`)).body).toMatchObject({ userId: 'alice', version: 2 })
  })

  it.each([
    ['a 500', 'fail-500'],
    ['a timeout', 'hang'],
    ['malformed JSON', 'malformed'],
    ['a connection cut midway', 'cut'],
  ])('502 upstream_error on %s, and nothing of the turn is written', async (_name, mode) => {
    const id = newSessionId()
    await append(id, [user('before')])
    const result = await turn(id, { content: 'hi', model: `${mode}#${newTag()}`, compaction: false })
    expectError(result, 502, 'upstream_error')
    expect((await log(id)).map((e) => e.message.content)).toEqual(['before'])
  })

  it('retries a flaky upstream (5xx before any output) and succeeds', async () => {
    const tag = newTag()
    const result = await turn(newSessionId(), { content: 'hi', model: `flaky-1#${tag}`, compaction: false })
    expect(result.status).toBe(200)
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('is idempotent by id: a retry returns the stored reply without calling the model again', async () => {
    const id = newSessionId()
    const tag = newTag()
    const first = await turn(id, { id: 'turn-1', content: 'hello', model: `echo#${tag}`, compaction: false })
    const again = await turn(id, { id: 'turn-1', content: 'hello', model: `echo#${tag}`, compaction: false })
    expect(again.status).toBe(200)
    expect(again.body.reply).toEqual(first.body.reply)
    expect(again.body.events).toEqual(first.body.events)
    expect(again.body.usage).toEqual(first.body.usage)
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expect(await log(id)).toHaveLength(2)
  })

  it('a retried id on an expired session starts over: the old turn never comes back', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 3600 } })
    const old = await turn(id, { id: 'turn-1', content: 'hello', compaction: false })
    // Two hours on for the code under test, before the real alarm has wiped anything.
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 2 * 3600_000)
    const again = await turn(id, { id: 'turn-1', content: 'hello', compaction: false })
    vi.useRealTimers()
    expect(again.status).toBe(200)
    expect(again.body.reply.id).not.toBe(old.body.reply.id)
    expect(again.body.reply.seq).toBe(2)
    expect(await log(id)).toHaveLength(2)
  })

  it('409 id_conflict for a retried id with other content, or an id that is not a turn', async () => {
    const id = newSessionId()
    await turn(id, { id: 'turn-1', content: 'hello', compaction: false })
    expectError(await turn(id, { id: 'turn-1', content: 'something else', compaction: false }), 409, 'id_conflict')
    await append(id, [user('plain append', 'appended-1')])
    expectError(await turn(id, { id: 'appended-1', content: 'plain append', compaction: false }), 409, 'id_conflict')
    expect(await log(id)).toHaveLength(3)
  })

  it('streams deltas over SSE, then one done event with the JSON response', async () => {
    const id = newSessionId()
    const result = await turn(id, { content: 'tell me more please', stream: true, compaction: false })
    expect(result.status).toBe(200)
    expect(result.headers.get('Content-Type')).toMatch(/^text\/event-stream/)
    const events = parseSSE(result.text)
    const deltas = events.filter((e) => e.event === 'delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.map((e) => e.data.text).join('')).toBe('Echo: tell me more please')
    expect(events.at(-1)!.event).toBe('done')
    expect(events.filter((e) => e.event === 'done')).toHaveLength(1)
    const done = events.at(-1)!.data
    expect(done.reply.message.content).toBe('Echo: tell me more please')
    expect(done.usage).not.toBeNull()
    expect((await log(id)).map((e) => e.message.content)).toEqual(['tell me more please', 'Echo: tell me more please'])
  })

  it('streams: a failure before any output is a JSON 502; after output it is one error event; nothing is written', async () => {
    const before = newSessionId()
    expectError(
      await turn(before, { content: 'hi', stream: true, model: `fail-500#${newTag()}`, compaction: false }),
      502,
      'upstream_error',
    )
    const after = newSessionId()
    const result = await turn(after, { content: 'hi there you', stream: true, model: `cut#${newTag()}`, compaction: false })
    expect(result.status).toBe(200)
    const events = parseSSE(result.text)
    expect(events.filter((e) => e.event === 'delta').length).toBeGreaterThan(0)
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: { error: { code: 'upstream_error', message: expect.stringContaining('cut_off') } },
    })
    expectError(await call('GET', `/v1/sessions/${after}`), 404, 'not_found')
  })

  it('stores the turn even when the client disconnects mid-stream', async () => {
    const id = newSessionId()
    const tag = newTag()
    const response = await exports.default.fetch(
      new Request(`https://sessions.test/v1/sessions/${id}/turns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          content: 'one two three four five six seven',
          stream: true,
          model: `holdend#${tag}`, // streams the reply, then holds its end until released
          compaction: false,
        }),
      }),
    )
    const stream = sseReader(response)
    await stream.until((frames) => deltas(frames) !== '') // the first words, then the client goes away
    await stream.cancel()
    await releaseUpstream(tag)
    // The turn goes on without its client: wait for its reply to be stored.
    await until(async () => ((await log(id)) ?? []).length === 2, 'the turn to be stored')
    const stored = await log(id)
    expect(stored.map((e) => e.message.content)).toEqual([
      'one two three four five six seven',
      'Echo: one two three four five six seven',
    ])
  })

  it('serializes concurrent turns on one session: five whole pairs, each prompt seeing the previous ones', async () => {
    const id = newSessionId()
    expect((await call('POST', '/v1/sessions', { body: { id } })).status).toBe(201)
    const tag = newTag()
    const sent = [1, 2, 3, 4, 5].map((n) => turn(id, { content: `message ${n}`, model: `hold#${tag}`, compaction: false }))
    // All five in flight together: the first holds the model, the other four wait behind it.
    await untilUpstreamReceived(tag)
    await until(async () => (await call('GET', `/v1/sessions/${id}/context`)).body.queued === 4, 'four turns queued')
    // Then one at a time: the next reaches the model only once the one before is answered.
    for (let n = 1; n <= 5; n++) {
      await untilUpstreamReceived(tag, n)
      expect(await releaseUpstream(tag)).toBe(1)
    }
    const results = await Promise.all(sent)
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    const events = await log(id)
    expect(events).toHaveLength(10)
    for (let i = 0; i < 10; i += 2) {
      expect(events[i].message.role).toBe('user')
      expect(events[i + 1].message).toEqual({ role: 'assistant', content: `Echo: ${events[i].message.content}` })
    }
    const prompts = (await upstreamRequests(tag)).map((r) => r.body.messages.length)
    expect(prompts).toEqual([1, 3, 5, 7, 9])
  })

  it('a turn waiting for the model does not hold up reads and appends on its session', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [user('first')])
    let turnDone = false
    const held = turn(id, { content: 'held one', model: `hold#${tag}`, compaction: false }).finally(() => {
      turnDone = true
    })
    await untilUpstreamReceived(tag) // the turn is waiting for the model, which answers only when released
    expect((await call('GET', `/v1/sessions/${id}/view`)).status).toBe(200)
    await append(id, [user('meanwhile')])
    expect(turnDone).toBe(false)
    await releaseUpstream(tag)
    expect((await held).status).toBe(200)
    // The turn's pair comes after what arrived while it waited.
    expect((await log(id)).map((e) => e.message.content)).toEqual(['first', 'meanwhile', 'held one', 'Echo: held one'])
  })

  it('400 for bad turn requests', async () => {
    const id = newSessionId()
    for (const [body, message] of [
      [{}, 'content: exactly one of content and toolResults is required'],
      [{ content: '' }, 'content: must not be empty'],
      [{ content: 'x', system: '' }, 'system: must not be empty'],
      // A value of the wrong type says what was expected, not that the field is missing.
      [{ content: 'x', stream: 'yes' }, 'stream: Invalid input: expected boolean, received string'],
      [{ content: 5 }, 'content: Invalid input: expected string or array, received number'],
      [{ content: 'x', compaction: true }, 'compaction:'],
      [{ content: 'x', id: 'bad id' }, 'id:'],
      [{ content: 'x', temperature: 2 }, 'temperature: unknown field'],
    ] as const) {
      const result = await turn(id, body)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toContain(message)
    }
  })
})
