import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, inject, it } from 'vitest'
import { anthropicSent, logOf, newSessionId, newTag, shown, upstreamSent } from './helpers'
import { blobOf, expectStoredOnce, PNG, PNG_BASE64, PNG_DATA_URL } from './media'

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

const screenshot: Anthropic.Tool = {
  name: 'screenshot',
  description: 'A screenshot of the screen',
  input_schema: { type: 'object', properties: {} },
}

/** What the tool returns: a line of text and the screenshot, as Claude Code's and computer-use tools do. */
const shot: Anthropic.ToolResultBlockParam['content'] = [
  { type: 'text', text: 'The screen:' },
  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
]

/**
 * Each upstream a tool result's image can reach, with its model names (`claude…` go to the fake
 * Anthropic one), the requests it was sent, and how the result of the call `s1` reads in one of
 * them: as that upstream takes a tool's image.
 */
const upstreams = [
  {
    upstream: 'an OpenAI chat upstream',
    prefix: '',
    sent: async (tag: string) => (await upstreamSent(tag)).map((request) => request.body.messages as any[]),
    // A tool message holds text only: the image follows at once, in a user message naming the call.
    resultOf: (messages: any[]) => {
      const at = messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === 's1')
      return messages.slice(at, at + 2)
    },
    result: [
      { role: 'tool', tool_call_id: 's1', content: 'The screen:' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[images returned by tool call s1]' },
          { type: 'image_url', image_url: { url: PNG_DATA_URL } },
        ],
      },
    ],
  },
  {
    upstream: 'an Anthropic upstream',
    prefix: 'claude-',
    sent: async (tag: string) => (await anthropicSent(tag)).map((request) => request.body.messages as any[]),
    // The image stays in the tool_result, as the client sent it.
    resultOf: (messages: any[]) =>
      messages.flatMap((m) => m.content).find((block) => block.type === 'tool_result' && block.tool_use_id === 's1')?.content,
    result: shot,
  },
]

describe('@anthropic-ai/sdk: an image inside a tool result', () => {
  for (const { upstream, prefix, sent, resultOf, result } of upstreams)
    it(`through ${upstream}: answered, then resent with the history: stored once, the model given it on every request after`, async () => {
      const id = newSessionId('anthropic')
      const tag = newTag()
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is on the screen?' }]
      const model = `${prefix}agent-s1#${tag}`
      const asked = await client(id).messages.create({ model, max_tokens: 200, tools: [screenshot], messages })
      const use = asked.content.find((block) => block.type === 'tool_use')!
      expect(use).toMatchObject({ id: 's1', name: 'screenshot' })
      messages.push(
        { role: 'assistant', content: asked.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: shot }] },
      )
      const answered = await client(id).messages.create({ model, max_tokens: 200, tools: [screenshot], messages })
      expect(answered.content).toEqual([{ type: 'text', text: 'Results: The screen: [image]' }])
      messages.push({ role: 'assistant', content: answered.content }, { role: 'user', content: 'Describe it again.' })
      const again = await client(id).messages.create({
        model: `${prefix}echo#${tag}`,
        max_tokens: 200,
        tools: [screenshot],
        messages,
      })
      expect(again.content).toEqual([{ type: 'text', text: 'Echo: Describe it again.' }])
      const log = await logOf(id)
      expect(shown(log).filter((line) => !line.startsWith('tool:'))).toEqual([
        'user:What is on the screen?',
        'assistant:calls s1',
        'assistant:Results: The screen: [image]',
        'user:Describe it again.',
        'assistant:Echo: Describe it again.',
      ])
      expect(log.find((event) => event.message.role === 'tool')!.message.toolResponses).toEqual([
        {
          id: 's1',
          name: 'screenshot',
          data: [
            { type: 'text', text: 'The screen:' },
            { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 40, height: 30 },
          ],
        },
      ])
      await expectStoredOnce(id, [PNG])
      const requests = await sent(tag)
      expect(requests).toHaveLength(3)
      expect(JSON.stringify(requests[0])).not.toContain(PNG_BASE64)
      for (const messages of requests.slice(1)) {
        expect(resultOf(messages)).toEqual(result)
        expect(JSON.stringify(messages).split(PNG_BASE64)).toHaveLength(2)
      }
    })
})
