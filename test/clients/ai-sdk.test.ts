import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent, viewOf } from './helpers'
import { expectImageAndPdfKept, PDF, PNG } from './media'

/** The Vercel AI SDK's OpenAI-compatible provider pointed at the service, the session in a header. */
const provider = (sessionId: string) =>
  createOpenAICompatible({
    name: 'durable-sessions',
    baseURL: inject('apiBase'),
    apiKey: inject('apiKey'),
    headers: { 'X-Session-Id': sessionId },
    includeUsage: true,
  })

describe('the AI SDK (ai + @ai-sdk/openai-compatible) against the chat-completions door', () => {
  it('generateText and streamText: the replies, stored in the session', async () => {
    const id = newSessionId()
    const plain = await generateText({ model: provider(id)('echo'), prompt: 'Hi there', maxRetries: 0 })
    expect(plain.text).toBe('Echo: Hi there')
    expect(plain.usage.totalTokens).toBeGreaterThan(0)
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

  it('a tool loop run by the SDK: it executes the tool and sends the history back; each message stored once', async () => {
    const id = newSessionId()
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
    expect(log[0]).toBe('user:Weather?')
    expect(log[1]).toBe('assistant:calls t1')
    expect(log[2]).toMatch(/^tool:t1=.*sunny/)
    expect(log[3]).toMatch(/^assistant:Results: .*sunny/)
    expect(log).toHaveLength(4)
    // The second request resent the whole history: the model still got each message once.
    const [, second] = await upstreamSent(tag)
    expect(second!.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('an image and a PDF in a turn (image_url and file parts), resent by the next: stored once, the model given both every time', async () => {
    const id = newSessionId()
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
    const first = await generateText({ model: provider(id)(`echo#${tag}`), messages, maxRetries: 0 })
    expect(first.text).toBe('Echo: What are these? [image] [file]')
    messages.push(...first.response.messages, { role: 'user', content: 'And the second page?' })
    const second = await generateText({ model: provider(id)(`echo#${tag}`), messages, maxRetries: 0 })
    expect(second.text).toBe('Echo: And the second page?')
    await expectImageAndPdfKept(id, tag)
  })

  it('a multi-turn conversation with the SDK’s messages resent every turn', async () => {
    const id = newSessionId()
    const messages: ModelMessage[] = []
    for (const question of ['One?', 'Two?', 'Three?']) {
      messages.push({ role: 'user', content: question })
      const result = await generateText({ model: provider(id)('echo'), messages, maxRetries: 0 })
      messages.push(...result.response.messages)
    }
    expect(shown(await logOf(id))).toEqual(['One?', 'Two?', 'Three?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
  })

  it('an edit in a multi-turn conversation whose messages are resent: the session follows the edited history', async () => {
    const id = newSessionId()
    const messages: ModelMessage[] = []
    for (const question of ['One?', 'Two?', 'Three?']) {
      messages.push({ role: 'user', content: question })
      const result = await generateText({ model: provider(id)('echo'), messages, maxRetries: 0 })
      messages.push(...result.response.messages)
    }
    // The person edits "Two?": what followed it goes, the edit is sent with the history before it.
    messages.splice(2, 4, { role: 'user', content: 'Two, edited?' })
    const edited = await generateText({ model: provider(id)('echo'), messages, maxRetries: 0 })
    expect(edited.text).toBe('Echo: Two, edited?')
    expect(edited.response.headers?.['x-rewound']).toBe('4')
    messages.push(...edited.response.messages, { role: 'user', content: 'Four?' })
    await generateText({ model: provider(id)('echo'), messages, maxRetries: 0 })
    expect(await viewOf(id)).toEqual(['One?', 'Two, edited?', 'Four?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]))
    expect(await logOf(id)).toHaveLength(10)
  })
})
