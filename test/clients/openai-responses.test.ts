import OpenAI from 'openai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent } from './helpers'

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
})
