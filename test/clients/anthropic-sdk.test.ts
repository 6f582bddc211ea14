import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent } from './helpers'

/** The official SDK (1.x: the token as a Bearer key, `anthropic-version` 2026-10-21) pointed at the service, the session in a header. */
const client = (sessionId: string) =>
  new Anthropic({
    baseURL: inject('apiBase').replace(/\/v1$/, ''),
    apiKey: inject('apiKey'),
    defaultHeaders: { 'X-Session-Id': sessionId },
    maxRetries: 0,
  })

const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
}

describe('@anthropic-ai/sdk against the Messages door', () => {
  it('a plain message: the SDK reads it, with its request id; the session holds the question and the reply', async () => {
    const id = newSessionId('anthropic')
    const { data: message, request_id } = await client(id)
      .messages.create({
        model: 'echo',
        max_tokens: 200,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello there' }],
      })
      .withResponse()
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Hello there' }])
    expect(message.stop_reason).toBe('end_turn')
    expect(message.usage.input_tokens).toBeGreaterThan(0)
    expect(request_id).toMatch(/.+/)
    expect(shown(await logOf(id))).toEqual(['system:Be brief.', 'user:Hello there', 'assistant:Echo: Hello there'])
  })

  it('a streamed message: the SDK’s stream helper puts the events together into the final message', async () => {
    const id = newSessionId('anthropic')
    const stream = client(id).messages.stream({
      model: 'echo',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Tell me something' }],
    })
    let text = ''
    stream.on('text', (piece) => {
      text += piece
    })
    const final = await stream.finalMessage()
    expect(text).toBe('Echo: Tell me something')
    expect(final.content).toEqual([{ type: 'text', text: 'Echo: Tell me something' }])
    expect(final.usage.output_tokens).toBeGreaterThan(0)
    expect(final.usage.input_tokens).toBeGreaterThan(0)
    expect(shown(await logOf(id)).at(-1)).toBe('assistant:Echo: Tell me something')
    expect(final.id).toMatch(/^msg_/)
  })

  it('a tool round trip, plain and streamed: tool_use, then the tool_result sent back with the history', async () => {
    const id = newSessionId('anthropic')
    const tag = newTag()
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }]
    const asked = await client(id).messages.create({ model: `agent-w1#${tag}`, max_tokens: 200, tools: [weather], messages })
    expect(asked.stop_reason).toBe('tool_use')
    const use = asked.content.find((block) => block.type === 'tool_use')!
    expect(use).toMatchObject({ id: 'w1', name: 'get_weather', input: { n: 0 } })
    messages.push(
      { role: 'assistant', content: asked.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '18°C, sunny' }] },
    )
    const answered = await client(id).messages.create({ model: `agent-w1#${tag}`, max_tokens: 200, tools: [weather], messages })
    expect(answered.content).toEqual([{ type: 'text', text: 'Results: 18°C, sunny' }])
    expect(shown(await logOf(id))).toEqual([
      'user:Weather in Paris?',
      'assistant:calls w1',
      'tool:w1=18°C, sunny',
      'assistant:Results: 18°C, sunny',
    ])

    // Streamed: the SDK assembles the tool_use block from its input_json_delta.
    const streamTag = newTag()
    const streamed = await client(id)
      .messages.stream({
        model: `tools-s1#${streamTag}`,
        max_tokens: 200,
        tools: [weather],
        messages: [...messages, { role: 'assistant', content: answered.content }, { role: 'user', content: 'And Rome?' }],
      })
      .finalMessage()
    expect(streamed.stop_reason).toBe('tool_use')
    expect(streamed.content).toEqual([{ type: 'tool_use', id: 's1', name: 'get_weather', input: { n: 0 } }])
    // Only what was new went up with the view: the history was not stored twice.
    const [sent] = await upstreamSent(streamTag)
    expect(sent!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
    expect(shown(await logOf(id)).slice(-2)).toEqual(['user:And Rome?', 'assistant:calls s1'])
  })

  it('a multi-turn conversation resending its whole history stores each message once', async () => {
    const id = newSessionId('anthropic')
    const messages: Anthropic.MessageParam[] = []
    for (const question of ['one', 'two', 'three']) {
      messages.push({ role: 'user', content: question })
      const reply = await client(id).messages.create({ model: 'echo', max_tokens: 100, messages })
      messages.push({ role: 'assistant', content: reply.content })
    }
    expect(shown(await logOf(id))).toEqual([
      'user:one',
      'assistant:Echo: one',
      'user:two',
      'assistant:Echo: two',
      'user:three',
      'assistant:Echo: three',
    ])
  })

  it('counts tokens, lists models, and raises the SDK’s own error classes', async () => {
    const id = newSessionId('anthropic')
    const counted = await client(id).messages.countTokens({ model: 'echo', messages: [{ role: 'user', content: 'How many?' }] })
    expect(counted.input_tokens).toBeGreaterThan(0)
    const models = await client(id).models.list()
    expect(models.data[0]).toMatchObject({ type: 'model', id: expect.any(String) })
    const refused = client(id).messages.create({
      model: 'echo',
      max_tokens: 10,
      messages: [
        { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
      ],
    })
    await expect(refused).rejects.toBeInstanceOf(Anthropic.BadRequestError)
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { type: 'error', error: { type: 'invalid_request_error' } },
    })
    const unauthorized = new Anthropic({ baseURL: inject('apiBase').replace(/\/v1$/, ''), apiKey: 'not.a.token', maxRetries: 0 })
    await expect(
      unauthorized.messages.create({ model: 'echo', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError)
  })

  it('does not send again what the service says would fail again (x-should-retry: false): a diverged history refused, a 409', async () => {
    const id = newSessionId('anthropic')
    await client(id).messages.create({ model: 'echo', max_tokens: 50, messages: [{ role: 'user', content: 'One' }] })
    let attempts = 0
    const counting: typeof fetch = (input, init) => {
      attempts += 1
      return fetch(input, init)
    }
    // Without the header the SDK would send a 409 three times (maxRetries: 2).
    const retrying = new Anthropic({
      baseURL: inject('apiBase').replace(/\/v1$/, ''),
      apiKey: inject('apiKey'),
      defaultHeaders: { 'X-Session-Id': id, 'X-On-Diverge': 'reject' },
      maxRetries: 2,
      fetch: counting,
    })
    const refused = retrying.messages.create({
      model: 'echo',
      max_tokens: 50,
      messages: [
        { role: 'user', content: 'One' },
        { role: 'assistant', content: 'Not what was said.' },
        { role: 'user', content: 'Two' },
      ],
    })
    await expect(refused).rejects.toMatchObject({ status: 409 })
    expect(attempts).toBe(1)
  })
})
