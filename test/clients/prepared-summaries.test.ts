import Anthropic from '@anthropic-ai/sdk'
import type { BetaContentBlock, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { cliMissing, codexUser, removeFolders, serveForCli, tokenOf } from './cli'
import { newSessionId, newTag, upstreamSent } from './helpers'

/**
 * Compaction without the wait (round4 §6), with the clients that ask for one: the session's summary
 * model is held at the fake upstream until the test lets it answer, so a compaction that called it
 * would never answer. The test lets the preparations after each turn answer; then each client's own
 * compaction — the `openai` package's `responses.compact`, the Anthropic SDK's `compact_20260112`,
 * Codex's remote compaction — answers from the prepared summary, its boundary saying so.
 */
let worker: Awaited<ReturnType<typeof serveWorker>>

beforeAll(async () => {
  worker = await serveForCli()
}, 180_000)

const tags: string[] = []
const release = (tag: string) => fetch(`${inject('upstreamUrl')}/__release?tag=${encodeURIComponent(tag)}`, { method: 'POST' })

afterAll(async () => {
  // A preparation still waiting after the last turn is let go before the Worker stops.
  for (const tag of tags) await release(tag)
  await worker?.stop()
  removeFolders()
})

/** A session of the token's user (a new user's by default) with a policy whose summary model is held, and the user's API. */
async function userSession(id = newSessionId('prepared'), token?: string) {
  const tag = newTag()
  tags.push(tag)
  token ??= await tokenOf(`prepared-${tag}`)
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(`/v1${path}`, worker.url), {
      ...init,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    })
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as any
  }
  const policy = {
    trigger: { turnCount: 1000 },
    strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } },
    prepare: { at: 0.0001 },
  }
  await api('/sessions', { method: 'POST', body: JSON.stringify({ id, policy }) })
  return {
    id,
    tag,
    token,
    api,
    /** Lets the session's summary calls answer as they come until its preparation has ended. */
    async prepared() {
      for (let polls = 0; ; polls++) {
        await release(tag)
        if (!(await api(`/sessions/${id}/context`)).preparing) return
        if (polls === 1000) throw new Error('the preparation did not end')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    /** The session's compactions' boundaries. */
    boundaries: async () =>
      (await api(`/sessions/${id}/events?limit=1000`)).events
        .filter((event: any) => event.type === 'COMPACTION')
        .map((event: any) => event.boundary),
    summaryCalls: async () => (await upstreamSent(tag)).length,
  }
}

describe('a client’s compaction with a prepared summary answers without waiting for the summary model', () => {
  it('the openai package’s responses.compact', async () => {
    const session = await userSession()
    const client = new OpenAI({
      baseURL: new URL('/v1', worker.url).href,
      apiKey: session.token,
      defaultHeaders: { 'session-id': session.id },
      maxRetries: 0,
    })
    let previous: string | undefined
    for (const input of ['The code word is kiwi.', 'And the colour is teal.']) {
      previous = (
        await client.responses.create({ model: 'echo', input, ...(previous ? { previous_response_id: previous } : {}) })
      ).id
      await session.prepared()
    }
    const calls = await session.summaryCalls()
    expect((await session.api(`/sessions/${session.id}/context`)).prepared.state).toBe('ready')
    const compacted = await client.responses.compact({ model: 'echo' })
    // The view's user messages after the pass (the newest turn's), and the compaction item.
    expect(compacted.output.map((item) => item.type)).toEqual(['message', 'compaction'])
    expect(await session.boundaries()).toEqual([expect.objectContaining({ prepared: true, coveredEventCount: 2 })])
    expect(await session.summaryCalls()).toBe(calls)
  })

  it('the Anthropic SDK’s compact_20260112', async () => {
    const session = await userSession()
    const client = new Anthropic({
      baseURL: worker.url.toString().replace(/\/$/, ''),
      apiKey: session.token,
      defaultHeaders: { 'X-Session-Id': session.id },
      maxRetries: 0,
    })
    const betas: Anthropic.Beta.AnthropicBeta[] = ['compact-2026-01-12']
    const messages: BetaMessageParam[] = []
    for (const question of ['One', 'Two', 'Three']) {
      messages.push({ role: 'user', content: question })
      const reply = await client.beta.messages.create({ model: 'echo', max_tokens: 100, betas, messages })
      messages.push({ role: 'assistant', content: reply.content as BetaContentBlock[] as never })
      await session.prepared()
    }
    const calls = await session.summaryCalls()
    messages.push({ role: 'user', content: 'Four' })
    const compacted = await client.beta.messages.create({
      model: 'echo',
      max_tokens: 100,
      betas,
      messages,
      context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 } }] },
    })
    // The edit's trigger did not fire (50k tokens): no compaction; then one that fires at 20.
    expect(compacted.content.map((block) => block.type)).toEqual(['text'])
    messages.push({ role: 'assistant', content: compacted.content as never }, { role: 'user', content: 'Five' })
    await session.prepared()
    const before = await session.summaryCalls()
    expect(before).toBeGreaterThan(calls)
    const fired = await client.beta.messages.create({
      model: 'echo',
      max_tokens: 100,
      betas,
      messages,
      context_management: { edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 20 } }] },
    })
    expect(fired.content.map((block) => block.type)).toEqual(['compaction', 'text'])
    // Answered at all: the pass made no summary call (a held one would not have answered).
    expect(await session.boundaries()).toEqual([expect.objectContaining({ prepared: true })])
  })
})

const why = cliMissing
describe.skipIf(why)('Codex’s remote compaction', () => {
  it('answers from the prepared summary: Codex goes on without waiting for the summary model', async () => {
    const id = newSessionId('prepared-codex')
    const codex = await codexUser(worker.url, { headers: { 'X-Session-Id': id } })
    const session = await userSession(id, codex.token)
    // The answer reports more tokens than Codex's limit: it compacts before its next turn.
    await codex.exec(['-m', `usage-50000#${session.tag}x`, 'The code word is kiwi.'])
    await session.prepared()
    expect(await codex.exec(['resume', '--last', '-m', 'echo', 'What was the code word?'])).toMatch(
      /Echo: What was the code word\?/,
    )
    // Codex went on at all: its compaction made no summary call (a held one would not have answered).
    expect(await session.boundaries()).toEqual([expect.objectContaining({ prepared: true })])
  })
})
