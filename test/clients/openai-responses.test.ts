import OpenAI from 'openai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent, viewOf } from './helpers'

/** The official SDK pointed at the service, the session in a header. */
const client = (sessionId: string) =>
  new OpenAI({
    baseURL: inject('apiBase'),
    apiKey: inject('apiKey'),
    defaultHeaders: { 'X-Session-Id': sessionId },
    maxRetries: 0,
  })

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: {} },
  strict: false,
}

describe('the openai package’s responses against the Responses door', () => {
  it('responses.create and responses.stream: the SDK reads them (output_text), stored in the session', async () => {
    const id = newSessionId('responses')
    const plain = await client(id).responses.create({ model: 'echo', instructions: 'Be brief.', input: 'Hello there' })
    expect(plain.output_text).toBe('Echo: Hello there')
    expect(plain.status).toBe('completed')
    expect(plain.usage?.total_tokens).toBeGreaterThan(0)
    const stream = client(id).responses.stream({ model: 'echo', instructions: 'Be brief.', input: 'Stream it' })
    let text = ''
    stream.on('response.output_text.delta', (event) => {
      text += event.delta
    })
    const final = await stream.finalResponse()
    expect(text).toBe('Echo: Stream it')
    expect(final.output_text).toBe('Echo: Stream it')
    expect(shown(await logOf(id))).toEqual([
      'system:Be brief.',
      'user:Hello there',
      'assistant:Echo: Hello there',
      'user:Stream it',
      'assistant:Echo: Stream it',
    ])
  })

  it('a tool round trip and a conversation resending its whole input: each item stored once', async () => {
    const id = newSessionId('responses')
    const tag = newTag()
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }]
    const asked = await client(id).responses.create({ model: `agent-w1#${tag}`, tools: [weather], input })
    const call = asked.output.find((item) => item.type === 'function_call')!
    expect(call).toMatchObject({ call_id: 'w1', name: 'get_weather' })
    input.push(...(asked.output as OpenAI.Responses.ResponseInputItem[]), {
      type: 'function_call_output',
      call_id: 'w1',
      output: '18°C',
    })
    const answered = await client(id).responses.create({ model: `agent-w1#${tag}`, tools: [weather], input })
    expect(answered.output_text).toBe('Results: 18°C')
    input.push(...(answered.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And tomorrow?' })
    const next = await client(id).responses.create({ model: `echo#${tag}`, input })
    expect(next.output_text).toBe('Echo: And tomorrow?')
    expect(shown(await logOf(id))).toEqual([
      'user:Weather in Paris?',
      'assistant:calls w1',
      'tool:w1=18°C',
      'assistant:Results: 18°C',
      'user:And tomorrow?',
      'assistant:Echo: And tomorrow?',
    ])
    const sent = await upstreamSent(tag)
    expect(sent.at(-1)!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user'])
  })

  it('a conversation chained by previous_response_id, the SDK sending only what is new', async () => {
    const id = newSessionId('responses')
    const first = await client(id).responses.create({ model: 'echo', input: 'One?' })
    const anonymous = new OpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), maxRetries: 0 })
    const second = await anonymous.responses.create({ model: 'echo', previous_response_id: first.id, input: 'Two?' })
    const third = await anonymous.responses.create({ model: 'echo', previous_response_id: second.id, input: 'Three?' })
    expect(third.output_text).toBe('Echo: Three?')
    expect(third.previous_response_id).toBe(second.id)
    expect(shown(await logOf(id))).toEqual(['One?', 'Two?', 'Three?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
  })

  it('responses.retrieve and inputItems.list read a stored response back', async () => {
    const id = newSessionId('responses')
    const created = await client(id).responses.create({ model: 'echo', input: [{ role: 'user', content: 'Keep this' }] })
    const retrieved = await client(id).responses.retrieve(created.id)
    expect(retrieved.output_text).toBe('Echo: Keep this')
    const items = []
    for await (const item of client(id).responses.inputItems.list(created.id)) items.push(item)
    expect(items).toMatchObject([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Keep this' }] }])
    await expect(client(id).responses.retrieve('resp_nothing')).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it('no session named and store unset: the service names one in conversation, and it goes on there', async () => {
    const anonymous = new OpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), maxRetries: 0 })
    const first = await anonymous.responses.create({ model: 'echo', input: 'Who keeps this?' })
    const conversation = first.conversation!.id
    expect(conversation).toMatch(/^conv_/)
    const second = await anonymous.responses.create({ model: 'echo', conversation, input: 'Still here?' })
    expect(second.conversation?.id).toBe(conversation)
    expect(shown(await logOf(conversation))).toEqual([
      'user:Who keeps this?',
      'assistant:Echo: Who keeps this?',
      'user:Still here?',
      'assistant:Echo: Still here?',
    ])
  })
})

describe('the openai package’s conversations against the Conversations API', () => {
  const openai = () => new OpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), maxRetries: 0 })

  it('create, items (create, list, retrieve, delete), responses in the conversation, update, delete', async () => {
    const conversation = await openai().conversations.create({
      metadata: { app: 'tests' },
      items: [{ type: 'message', role: 'user', content: 'First' }],
    })
    expect(conversation).toMatchObject({ object: 'conversation', metadata: { app: 'tests' } })
    const added = await openai().conversations.items.create(conversation.id, {
      items: [{ type: 'message', role: 'user', content: 'Second' }],
    })
    expect(added.data).toHaveLength(1)
    const answered = await openai().responses.create({ model: 'echo', conversation: conversation.id, input: 'Third' })
    expect(answered.output_text).toBe('Echo: Third')
    const listed = []
    for await (const item of openai().conversations.items.list(conversation.id, { order: 'asc', limit: 2 })) listed.push(item)
    expect(listed.map((item) => item.type === 'message' && item.content.map((part: any) => part.text).join(''))).toEqual([
      'First',
      'Second',
      'Third',
      'Echo: Third',
    ])
    const newest = listed.at(-1)!
    const retrieved = await openai().conversations.items.retrieve(newest.id!, { conversation_id: conversation.id })
    expect(retrieved).toMatchObject({ id: newest.id, type: 'message', role: 'assistant' })
    await openai().conversations.items.delete(newest.id!, { conversation_id: conversation.id })
    expect(await viewOf(conversation.id)).toEqual(['user:First', 'user:Second', 'user:Third'])
    const updated = await openai().conversations.update(conversation.id, { metadata: { app: 'renamed' } })
    expect(updated.metadata).toEqual({ app: 'renamed' })
    expect(await openai().conversations.delete(conversation.id)).toMatchObject({ deleted: true })
    await expect(openai().conversations.retrieve(conversation.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })
})
