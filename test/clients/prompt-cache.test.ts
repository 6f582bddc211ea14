/**
 * Provider prompt caches (round4.md §6): a client's `prompt_cache_key` reaches an OpenAI-wire
 * upstream through the chat-completions and Responses doors (the openai package, and Codex, which
 * sends one of its own); with PROMPT_CACHE_KEY=session the service sends one made from the
 * session when the client names none.
 */
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { cliMissing, codexUser, removeFolders, serveForCli, tokenOf } from './cli'
import { newSessionId, newTag, upstreamSent } from './helpers'

/** The openai package pointed at `base` as the token's user, the session in a header. */
const clientOf = (base: string, apiKey: string, sessionId: string) =>
  new OpenAI({ baseURL: base, apiKey, defaultHeaders: { 'X-Session-Id': sessionId }, maxRetries: 0 })

const keysSent = async (tag: string) =>
  ((await upstreamSent(tag)) as unknown as { body: { prompt_cache_key?: string } }[]).map(
    (request) => request.body.prompt_cache_key,
  )

describe('a client’s prompt_cache_key', () => {
  it('reaches the upstream through the chat-completions and Responses doors', async () => {
    const client = clientOf(inject('apiBase'), inject('apiKey'), newSessionId('cache'))
    const tag = newTag()
    await client.chat.completions.create({
      model: `echo#${tag}`,
      prompt_cache_key: 'my-app-chat',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    await clientOf(inject('apiBase'), inject('apiKey'), newSessionId('cache')).responses.create({
      model: `echo#${tag}`,
      prompt_cache_key: 'my-app-responses',
      input: 'Hello',
    })
    expect(await keysSent(tag)).toEqual(['my-app-chat', 'my-app-responses'])
  })

  it('is not invented when the client names none and the deployment does not ask for one', async () => {
    const tag = newTag()
    await clientOf(inject('apiBase'), inject('apiKey'), newSessionId('cache')).chat.completions.create({
      model: `echo#${tag}`,
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(await keysSent(tag)).toEqual([undefined])
  })
})

const why = cliMissing
describe.skipIf(why)('PROMPT_CACHE_KEY=session, and Codex', () => {
  let worker: Awaited<ReturnType<typeof serveWorker>>
  beforeAll(async () => {
    worker = await serveForCli({ PROMPT_CACHE_KEY: 'session' })
  }, 180_000)
  afterAll(async () => {
    await worker?.stop()
    removeFolders()
  })

  it('sends one key per session, naming no user, when the client names none; a client’s own key wins', async () => {
    const token = await tokenOf(`cache-${Date.now().toString(36)}`)
    const base = new URL('/v1', worker.url).href
    const [one, other] = [newSessionId('cache'), newSessionId('cache')]
    const tag = newTag()
    const ask = (sessionId: string, content: string, key?: string) =>
      clientOf(base, token, sessionId).chat.completions.create({
        model: `echo#${tag}`,
        messages: [{ role: 'user', content }],
        ...(key ? { prompt_cache_key: key } : {}),
      })
    await ask(one, 'First')
    await ask(one, 'Second')
    await ask(other, 'Elsewhere')
    await ask(one, 'Mine', 'client-key')
    const [first, second, elsewhere, mine] = await keysSent(tag)
    expect(first).toMatch(/^ds-[0-9a-f]{64}$/)
    expect(second).toBe(first)
    expect(elsewhere).toMatch(/^ds-[0-9a-f]{64}$/)
    expect(elsewhere).not.toBe(first)
    expect(mine).toBe('client-key')
  })

  it('Codex’s own prompt_cache_key reaches the upstream, the same on each of its requests', async () => {
    const codex = await codexUser(worker.url)
    const tag = newTag()
    await codex.exec(['-m', `echo#${tag}`, 'Hello from Codex'])
    await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'And again'])
    const keys = await keysSent(tag)
    expect(keys.length).toBeGreaterThanOrEqual(2)
    expect(keys[0]).toEqual(expect.any(String))
    expect(keys[0]).not.toMatch(/^ds-/)
    expect(new Set(keys).size).toBe(1)
  })
})
