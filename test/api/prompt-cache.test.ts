import { describe, expect, it } from 'vitest'
import { call, newSessionId, turn, upstreamRequests } from '../helpers'

/**
 * Provider prompt caches (round4.md §6): `/context`'s `cache` over the session's last 20 chat
 * calls, as the upstream reported them (the fake's `cached-<n>`: 100 prompt tokens, n of them
 * read from a cache; `usage-<n>`: n prompt tokens, none cached); `/turns` options'
 * `promptCacheKey` sent upstream as `prompt_cache_key`.
 */
const cacheOf = async (id: string) => (await call('GET', `/v1/sessions/${id}/context`)).body.cache

describe('/context cache', () => {
  it('is empty before any chat call, then sums what the calls reported and the cached share', async () => {
    const id = newSessionId('cache')
    await call('POST', `/v1/sessions/${id}/events`, { body: { events: [{ message: { role: 'user', content: 'Hi' } }] } })
    expect(await cacheOf(id)).toEqual({ calls: 0, promptTokens: 0, cachedPromptTokens: 0, hitRate: 0 })
    expect((await turn(id, { model: 'cached-40', content: 'One' })).status).toBe(200)
    expect((await turn(id, { model: 'cached-70', content: 'Two' })).status).toBe(200)
    expect(await cacheOf(id)).toEqual({ calls: 2, promptTokens: 200, cachedPromptTokens: 110, hitRate: 0.55 })
  })

  it('counts the last 20 calls only', async () => {
    const id = newSessionId('cache')
    expect((await turn(id, { model: 'usage-1000', content: 'An uncached first call' })).status).toBe(200)
    for (let i = 0; i < 20; i++) expect((await turn(id, { model: 'cached-50', content: `Turn ${i}` })).status).toBe(200)
    expect(await cacheOf(id)).toEqual({ calls: 20, promptTokens: 2000, cachedPromptTokens: 1000, hitRate: 0.5 })
  })
})

describe('/turns options.promptCacheKey', () => {
  it('reaches the upstream as prompt_cache_key, and only when given', async () => {
    const id = newSessionId('cache')
    const tag = `key${Date.now().toString(36)}`
    expect((await turn(id, { model: `echo#${tag}`, content: 'Keyed', options: { promptCacheKey: 'app-key-1' } })).status).toBe(
      200,
    )
    expect((await turn(id, { model: `echo#${tag}`, content: 'Unkeyed' })).status).toBe(200)
    const sent = await upstreamRequests(tag)
    expect(sent.map((request) => (request.body as { prompt_cache_key?: string }).prompt_cache_key)).toEqual([
      'app-key-1',
      undefined,
    ])
  })
})
