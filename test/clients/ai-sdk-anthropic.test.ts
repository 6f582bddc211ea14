import { createAnthropic } from '@ai-sdk/anthropic'
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent } from './helpers'
import { expectImageAndPdfKept, PDF, PDF_BASE64, PNG, PNG_BASE64 } from './media'

/**
 * The AI SDK's Anthropic provider pointed at the service (its base URL ends in /v1; the token as
 * `x-api-key`); the request bodies it sends are kept to show what it used.
 */
const provider = (sessionId: string, bodies: Record<string, any>[] = []) =>
  createAnthropic({
    baseURL: inject('apiBase'),
    apiKey: inject('apiKey'),
    headers: { 'X-Session-Id': sessionId },
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body))
      return fetch(url, init)
    },
  })

describe('the AI SDK (ai + @ai-sdk/anthropic) against the Messages door', () => {
  it('generateText and streamText: the replies and their usage, stored in the session', async () => {
    const id = newSessionId('aisdk-anthropic')
    const plain = await generateText({ model: provider(id)('echo'), system: 'Be brief.', prompt: 'Hi there', maxRetries: 0 })
    expect(plain.text).toBe('Echo: Hi there')
    expect(plain.finishReason).toBe('stop')
    expect(plain.usage.inputTokens).toBeGreaterThan(0)
    const streamed = streamText({ model: provider(id)('echo'), system: 'Be brief.', prompt: 'Stream it', maxRetries: 0 })
    let text = ''
    for await (const piece of streamed.textStream) text += piece
    expect(text).toBe('Echo: Stream it')
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0)
    expect(shown(await logOf(id))).toEqual([
      'system:Be brief.',
      'user:Hi there',
      'assistant:Echo: Hi there',
      'user:Stream it',
      'assistant:Echo: Stream it',
    ])
  })

  it('a tool loop run by the SDK: it executes the tool and sends the history back; each message stored once', async () => {
    const id = newSessionId('aisdk-anthropic')
    const tag = newTag()
    const result = await generateText({
      model: provider(id)(`agent-t1#${tag}`),
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } } }),
          execute: async () => 'sunny',
        }),
      },
      stopWhen: stepCountIs(3),
      messages: [{ role: 'user', content: 'Weather?' }],
      maxRetries: 0,
    })
    expect(result.text).toMatch(/^Results: .*sunny/)
    const log = shown(await logOf(id))
    expect(log).toHaveLength(4)
    expect(log.slice(0, 2)).toEqual(['user:Weather?', 'assistant:calls t1'])
    expect(log[2]).toMatch(/^tool:t1=.*sunny/)
    expect(log[3]).toMatch(/^assistant:Results: .*sunny/)
    const [, second] = await upstreamSent(tag)
    expect(second!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('an image and a PDF in a turn (image and document blocks), resent by the next: stored once, the model given both every time', async () => {
    const id = newSessionId('aisdk-anthropic')
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
    const first = await generateText({
      model: provider(id, bodies)(`echo#${tag}`),
      messages,
      maxOutputTokens: 200,
      maxRetries: 0,
    })
    expect(first.text).toBe('Echo: What are these? [image] [file]')
    messages.push(...first.response.messages, { role: 'user', content: 'And the second page?' })
    const second = await generateText({
      model: provider(id, bodies)(`echo#${tag}`),
      messages,
      maxOutputTokens: 200,
      maxRetries: 0,
    })
    expect(second.text).toBe('Echo: And the second page?')
    // The SDK sent the question in its own shapes, whole, both times.
    expect(bodies).toHaveLength(2)
    for (const body of bodies)
      expect(body.messages[0].content).toEqual([
        { type: 'text', text: 'What are these?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 }, title: 'plan.pdf' },
      ])
    await expectImageAndPdfKept(id, tag)
  })

  it('a multi-turn conversation with the SDK’s messages resent every turn', async () => {
    const id = newSessionId('aisdk-anthropic')
    const messages: ModelMessage[] = []
    for (const question of ['One?', 'Two?', 'Three?']) {
      messages.push({ role: 'user', content: question })
      const result = await generateText({ model: provider(id)('echo'), messages, maxRetries: 0 })
      messages.push(...result.response.messages)
    }
    expect(shown(await logOf(id))).toEqual(['One?', 'Two?', 'Three?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
  })
})
