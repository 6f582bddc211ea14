import {
  Agent,
  OpenAIConversationsSession,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  tool,
} from '@openai/agents'
import OpenAI from 'openai'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { logOf, newTag, shown, upstreamSent, viewOf } from './helpers'
import { blobOf, expectStoredOnce, PNG, PNG_BASE64, PNG_DATA_URL } from './media'

/** The Agents SDK (`@openai/agents`) with its OpenAI client pointed at the service, on the Responses API. */
const client = () => new OpenAI({ baseURL: inject('apiBase'), apiKey: inject('apiKey'), maxRetries: 0 })

beforeAll(() => {
  setDefaultOpenAIClient(client())
  setOpenAIAPI('responses')
  setTracingDisabled(true)
})

const weather = tool({
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: z.object({}),
  execute: async () => 'sunny',
})

describe('the Agents SDK against the Responses door and Conversations', () => {
  it('OpenAIConversationsSession: the agent’s memory is a conversation, held by the service across runs', async () => {
    const agent = new Agent({ name: 'Assistant', instructions: 'Be brief.', model: 'echo' })
    const session = new OpenAIConversationsSession({ client: client() })
    const first = await run(agent, 'Hello', { session })
    expect(first.finalOutput).toBe('Echo: Hello')
    const second = await run(agent, 'Again', { session })
    expect(second.finalOutput).toBe('Echo: Again')
    const id = await session.getSessionId()
    expect(id).toMatch(/^conv_/)
    expect(await viewOf(id)).toEqual(['user:Hello', 'assistant:Echo: Hello', 'user:Again', 'assistant:Echo: Again'])
    // A new session object on the same conversation reads the history back from the service.
    const again = new OpenAIConversationsSession({ client: client(), conversationId: id })
    expect((await again.getItems()).length).toBe(4)
    await again.popItem()
    expect(await viewOf(id)).toEqual(['user:Hello', 'assistant:Echo: Hello', 'user:Again'])
  })

  it('a tool the agent runs, with its memory in a conversation: the loop stored there, the model shown it', async () => {
    const tag = newTag()
    const agent = new Agent({ name: 'Weather', instructions: 'Use the tool.', model: `agent-w1#${tag}`, tools: [weather] })
    const session = new OpenAIConversationsSession({ client: client() })
    const result = await run(agent, 'Weather?', { session })
    expect(result.finalOutput).toBe('Results: sunny')
    const view = await viewOf(await session.getSessionId())
    expect(view[0]).toBe('user:Weather?')
    expect(view.at(-1)).toBe('assistant:Results: sunny')
    const [, second] = await upstreamSent(tag)
    expect(second!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  it('an image input, the agent’s memory in a conversation: stored once however often resent, the model given it every run', async () => {
    const tag = newTag()
    const agent = new Agent({ name: 'Looker', instructions: 'Describe images.', model: `echo#${tag}` })
    const session = new OpenAIConversationsSession({ client: client() })
    const question = [
      {
        role: 'user' as const,
        content: [
          { type: 'input_text' as const, text: 'What is this?' },
          { type: 'input_image' as const, image: PNG_DATA_URL },
        ],
      },
    ]
    const first = await run(agent, question, { session })
    expect(first.finalOutput).toBe('Echo: What is this? [image]')
    // The next runs send the history the session reads back from the conversation, image included.
    for (const next of ['And its colour?', 'And its size?']) {
      const result = await run(agent, next, { session })
      expect(result.finalOutput).toBe(`Echo: ${next}`)
    }
    const id = await session.getSessionId()
    const log = await logOf(id)
    expect(log.map((event) => event.message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    // As the SDK sent it, with the detail it adds.
    const image = { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 40, height: 30 }
    expect(log[0]!.message.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { ...image, detail: 'auto' },
    ])
    await expectStoredOnce(id, [PNG])
    const sent = await upstreamSent(tag)
    expect(sent).toHaveLength(3)
    for (const { body } of sent) {
      expect(body.messages.find((m) => m.role === 'user')).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'auto' } },
        ],
      })
      expect(JSON.stringify(body.messages).split(PNG_BASE64)).toHaveLength(2)
    }
  })

  it('previousResponseId: the SDK sends only what is new, the service goes on in the response’s session', async () => {
    const agent = new Agent({ name: 'Assistant', model: 'echo' })
    const first = await run(agent, 'One?')
    const second = await run(agent, 'Two?', { previousResponseId: first.lastResponseId })
    expect(second.finalOutput).toBe('Echo: Two?')
    const stored = await client().responses.retrieve(second.lastResponseId!)
    expect(shown(await logOf(stored.conversation!.id))).toEqual([
      'user:One?',
      'assistant:Echo: One?',
      'user:Two?',
      'assistant:Echo: Two?',
    ])
  })
})
