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
