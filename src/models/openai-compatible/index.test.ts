import { describe, expect, it } from 'vitest'
import { baseUrl, failure, recorded, request, tag } from '../testing'
import { openAICompatible } from '.'

const model = openAICompatible({ baseUrl, apiKey: 'k-123', timeoutMs: 1000 })

describe('openAICompatible', () => {
  it('posts chat completions with the key, the messages and max_tokens, and reads the answer and usage', async () => {
    const t = tag()
    const reply = await model.chat(request(`echo#${t}`))
    expect(reply).toEqual({
      content: 'Echo: Hello there',
      toolCalls: [],
      usage: { promptTokens: 9, completionTokens: 5, totalTokens: 14 },
      finishReason: 'stop',
      model: `echo#${t}`, // as the upstream reported it
    })
    const [sent] = await recorded(t)
    expect(sent!.authorization).toBe('Bearer k-123')
    expect(sent!.body).toMatchObject({ model: `echo#${t}`, max_tokens: 77, stream: false, messages: request('x').messages })
  })

  it('never sends another provider’s reasoning', async () => {
    const t = tag()
    const thinking = { provider: 'anthropic', type: 'thinking', thinking: 'secret thoughts', signature: 's' }
    await model.chat({
      ...request(`echo#${t}`),
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', reasoning: [thinking] },
        { role: 'user', content: 'Again' },
      ],
    })
    const [sent] = await recorded(t)
    expect(JSON.stringify(sent!.body)).not.toContain('secret thoughts')
    expect((sent!.body.messages as unknown[])[1]).toEqual({ role: 'assistant', content: 'Hello' })
  })

  it('streams deltas over SSE, with usage from the final chunk', async () => {
    const t = tag()
    const deltas: string[] = []
    const reply = await model.chat(request(`echo#${t}`, (text) => deltas.push(text)))
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Echo: Hello there')
    expect(reply.content).toBe('Echo: Hello there')
    expect(reply.usage).toEqual({ promptTokens: 9, completionTokens: 5, totalTokens: 14 })
    expect((await recorded(t))[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  it('skips SSE comments and heartbeats', async () => {
    const deltas: string[] = []
    const reply = await model.chat(request(`noisy#${tag()}`, (text) => deltas.push(text)))
    expect(deltas.join('')).toBe('Echo: Hello there')
    expect(reply.content).toBe('Echo: Hello there')
  })

  it('maps failures: status (retryable only for 429/5xx), context length, malformed, cut off, timeout', async () => {
    const s500 = await failure(model.chat(request(`fail-500#${tag()}`)))
    expect([s500.failure, s500.options.status, s500.retryable]).toEqual(['status', 500, true])
    const s429 = await failure(model.chat(request(`fail-429#${tag()}`)))
    expect(s429.retryable).toBe(true)
    const s401 = await failure(model.chat(request(`fail-401#${tag()}`)))
    expect([s401.failure, s401.retryable]).toEqual(['status', false])
    expect((await failure(model.chat(request(`context-5#${tag()}`)))).failure).toBe('context_length')
    expect((await failure(model.chat(request(`malformed#${tag()}`)))).failure).toBe('malformed')
    expect((await failure(model.chat(request(`malformed#${tag()}`, () => undefined)))).failure).toBe('malformed')
    const cut = await failure(model.chat(request(`cut#${tag()}`, () => undefined)))
    expect([cut.failure, cut.options.outputStarted, cut.retryable]).toEqual(['cut_off', true, false])
    expect((await failure(model.chat(request(`cut#${tag()}`)))).failure).toMatch(/malformed|cut_off|transport/)
    expect((await failure(model.chat(request(`hang#${tag()}`)))).failure).toBe('timeout')
    expect((await failure(model.chat(request(`hang#${tag()}`, () => undefined)))).failure).toBe('timeout')
    const unreachable = openAICompatible({ baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 1000 })
    expect((await failure(unreachable.chat(request('echo')))).failure).toBe('transport')
  })
})
