import { createOpenAI } from '@ai-sdk/openai'
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent, viewOf } from './helpers'
import { expectImageAndPdfKept, PDF, PDF_DATA_URL, PNG, PNG_DATA_URL } from './media'

/**
 * The AI SDK's default OpenAI provider (`@ai-sdk/openai`: the Responses API, stored, earlier
 * replies sent back as item references) pointed at the service, the session in a header; the
 * request bodies it sends are kept to show what it used.
 */
const provider = (sessionId: string, bodies: Record<string, any>[] = []) =>
  createOpenAI({
    baseURL: inject('apiBase'),
    apiKey: inject('apiKey'),
    headers: { 'X-Session-Id': sessionId },
    fetch: recording(bodies),
  })

/** A fetch that keeps the JSON bodies it sends. */
const recording =
  (bodies: Record<string, any>[]): typeof fetch =>
  async (url, init) => {
    if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body))
    return fetch(url, init)
  }

describe('the AI SDK’s OpenAI provider (Responses) against the Responses door', () => {
  it('generateText and streamText with its default model: the replies, stored in the session', async () => {
    const id = newSessionId('ai-responses')
    const bodies: Record<string, any>[] = []
    const plain = await generateText({ model: provider(id, bodies)('echo'), prompt: 'Hi there', maxRetries: 0 })
    expect(plain.text).toBe('Echo: Hi there')
    expect(plain.usage.totalTokens).toBeGreaterThan(0)
    expect(bodies[0]).toMatchObject({ model: 'echo', input: [{ role: 'user' }] })
    const streamed = streamText({ model: provider(id)('echo'), prompt: 'Stream it', maxRetries: 0 })
    let text = ''
    for await (const piece of streamed.textStream) text += piece
    expect(text).toBe('Echo: Stream it')
    expect(shown(await logOf(id))).toEqual([
      'user:Hi there',
      'assistant:Echo: Hi there',
      'user:Stream it',
      'assistant:Echo: Stream it',
    ])
  })

  it('a multi-turn conversation: earlier replies come back as item references, each message stored once', async () => {
    const id = newSessionId('ai-responses')
    const tag = newTag()
    const bodies: Record<string, any>[] = []
    const messages: ModelMessage[] = []
    for (const question of ['One?', 'Two?', 'Three?']) {
      messages.push({ role: 'user', content: question })
      const result = await generateText({ model: provider(id, bodies)(`echo#${tag}`), messages, maxRetries: 0 })
      messages.push(...result.response.messages)
    }
    expect(bodies[2]!.input.filter((item: any) => item.type === 'item_reference')).toHaveLength(2)
    expect(shown(await logOf(id))).toEqual(['One?', 'Two?', 'Three?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
    const sent = await upstreamSent(tag)
    expect(sent.at(-1)!.body.messages.map((m) => m.content)).toEqual(['One?', 'Echo: One?', 'Two?', 'Echo: Two?', 'Three?'])
  })

  it('an image and a PDF in a turn (input_image and input_file), resent by the next: stored once, the model given both every time', async () => {
    const id = newSessionId('ai-responses')
    const tag = newTag()
    const messages: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What are these?' },
          { type: 'file', data: PNG, mediaType: 'image/png' },
          { type: 'file', data: PDF, mediaType: 'application/pdf', filename: 'plan.pdf' },
        ],
      },
    ]
    const bodies: Record<string, any>[] = []
    const first = await generateText({ model: provider(id, bodies)(`echo#${tag}`), messages, maxRetries: 0 })
    expect(first.text).toBe('Echo: What are these? [image] [file]')
    messages.push(...first.response.messages, { role: 'user', content: 'And the second page?' })
    const second = await generateText({ model: provider(id, bodies)(`echo#${tag}`), messages, maxRetries: 0 })
    expect(second.text).toBe('Echo: And the second page?')
    // The SDK sent the question in its own shapes both times (the reply the second time by reference).
    expect(bodies).toHaveLength(2)
    for (const body of bodies)
      expect(body.input[0].content).toEqual([
        { type: 'input_text', text: 'What are these?' },
        { type: 'input_image', image_url: PNG_DATA_URL },
        { type: 'input_file', filename: 'plan.pdf', file_data: PDF_DATA_URL },
      ])
    await expectImageAndPdfKept(id, tag)
  })

  it('a tool loop the SDK runs: its calls and results stored once, the model shown the whole loop', async () => {
    const id = newSessionId('ai-responses')
    const tag = newTag()
    const result = await generateText({
      model: provider(id)(`agent-w1#${tag}`),
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } } }),
          execute: async () => 'sunny',
        }),
      },
      stopWhen: stepCountIs(3),
      prompt: 'Weather?',
      maxRetries: 0,
    })
    expect(result.text).toMatch(/^Results: .*sunny/)
    const log = shown(await logOf(id))
    expect(log).toHaveLength(4)
    expect(log.slice(0, 2)).toEqual(['user:Weather?', 'assistant:calls w1'])
    expect(log[2]).toMatch(/^tool:w1=.*sunny/)
    const [, second] = await upstreamSent(tag)
    expect(second!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('with a conversation as its provider option: only the new message is sent, the conversation holds the rest', async () => {
    const created = await fetch(`${inject('apiBase')}/conversations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${inject('apiKey')}`, 'Content-Type': 'application/json' },
      body: '{}',
    })
    const { id } = (await created.json()) as { id: string }
    const bodies: Record<string, any>[] = []
    for (const question of ['Alpha?', 'Beta?']) {
      // As OpenAI's conversations take it: the new input, appended to what the conversation holds.
      const result = await generateText({
        model: createOpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), fetch: recording(bodies) })('echo'),
        prompt: question,
        providerOptions: { openai: { conversation: id } },
        maxRetries: 0,
      })
      expect(result.text).toBe(`Echo: ${question}`)
    }
    expect(bodies.map((body) => [body.conversation, body.input.length])).toEqual([
      [id, 1],
      [id, 1],
    ])
    expect(await viewOf(id)).toEqual(['Alpha?', 'Beta?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
  })
})
