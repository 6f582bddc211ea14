import { describe, expect, it } from 'vitest'
import { openAICompatible } from './openai-compatible'
import { withRetries } from './retry'
import { baseUrl, failure, recorded, request, tag } from './testing'

const model = openAICompatible({ baseUrl, apiKey: 'k-123', timeoutMs: 1000 })

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
