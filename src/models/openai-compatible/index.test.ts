import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { type ChatRequest, UpstreamError } from '../port'
import { withRetries } from '../retry'
import { openAICompatible } from '.'

const baseUrl = env.OPENAI_BASE_URL!
const upstream = baseUrl.replace(/\/v1$/, '')
const model = openAICompatible({ baseUrl, apiKey: 'k-123', timeoutMs: 1000 })
let n = 0
const tag = () => `oa${Date.now().toString(36)}${++n}`
const request = (modelName: string, onDelta?: (text: string) => void): ChatRequest => ({
  model: modelName,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello there' },
  ],
  maxTokens: 77,
  onDelta,
})
const recorded = async (t: string) =>
  (await (await fetch(`${upstream}/__requests?tag=${t}`)).json()) as { body: Record<string, unknown>; authorization?: string }[]
const failure = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    if (error instanceof UpstreamError) return error
    throw error
  }
  throw new Error('expected an UpstreamError')
}

describe('openAICompatible', () => {
  it('posts chat completions with the key, the messages and max_tokens, and reads the answer and usage', async () => {
    const t = tag()
    const reply = await model.chat(request(`echo#${t}`))
    expect(reply).toEqual({
      content: 'Echo: Hello there',
      toolCalls: [],
      usage: { promptTokens: 5, completionTokens: 5, totalTokens: 10 },
      finishReason: 'stop',
    })
    const [sent] = await recorded(t)
    expect(sent!.authorization).toBe('Bearer k-123')
    expect(sent!.body).toMatchObject({ model: `echo#${t}`, max_tokens: 77, stream: false, messages: request('x').messages })
  })

  it('streams deltas over SSE, with usage from the final chunk', async () => {
    const t = tag()
    const deltas: string[] = []
    const reply = await model.chat(request(`echo#${t}`, (text) => deltas.push(text)))
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Echo: Hello there')
    expect(reply.content).toBe('Echo: Hello there')
    expect(reply.usage).toEqual({ promptTokens: 5, completionTokens: 5, totalTokens: 10 })
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

describe('withRetries', () => {
  const retrying = withRetries(model, { retries: 2, backoffMs: 5 })

  it('retries 5xx before any output, then succeeds', async () => {
    const t = tag()
    const reply = await retrying.chat(request(`flaky-2#${t}`))
    expect(reply.content).toBe('Echo: Hello there')
    expect(await recorded(t)).toHaveLength(3)
  })

  it('gives up after the bounded number of attempts', async () => {
    const t = tag()
    expect((await failure(retrying.chat(request(`flaky-9#${t}`)))).options.status).toBe(503)
    expect(await recorded(t)).toHaveLength(3)
  })

  it('never retries a client error or a stream that already produced output', async () => {
    const t1 = tag()
    await failure(retrying.chat(request(`fail-400#${t1}`)))
    expect(await recorded(t1)).toHaveLength(1)
    const t2 = tag()
    await failure(retrying.chat(request(`cut#${t2}`, () => undefined)))
    expect(await recorded(t2)).toHaveLength(1)
  })
})
