/**
 * Issue 27: how much of each prompt a provider's prompt cache could serve. A client resends its
 * whole history through the Messages door for 200 turns, on a session whose policy compacts every
 * few dozen turns; each prompt the model was sent is rendered as the Anthropic upstream sends it,
 * cache markers aside, and the bytes it shares as a prefix with the prompt before it are counted.
 */
import { anthropicPrompt } from '../../src/models/anthropic/wire'
import { type Measured, message } from '../shared'
import type { BenchWorker } from './client'
import { RUN } from './config'

const TURNS = 200
/** A pass every 50 turns, keeping the last 20. */
const POLICY = { trigger: { turnCount: 50 }, strategy: { window: { lastTurns: 20 }, summarizer: {} } }

/** The length of the longest common prefix of two texts. */
function sharedPrefix(a: string, b: string): number {
  let at = 0
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++
  return at
}

export async function promptPrefixShare(worker: BenchWorker): Promise<Measured> {
  const session = `prefix-${RUN}-${Math.random().toString(36).slice(2, 8)}`
  const tag = `prefix${RUN}${Math.random().toString(36).slice(2, 8)}`
  await worker.api('POST', '/v1/sessions', { id: session, policy: POLICY })
  const history: { role: string; content: unknown }[] = []
  for (let i = 0; i < TURNS; i++) {
    history.push({ role: 'user', content: message(i) })
    const response = await fetch(new URL('/v1/messages', worker.url), {
      method: 'POST',
      headers: {
        Authorization: worker.authorization,
        'Content-Type': 'application/json',
        'anthropic-version': '2023-06-01',
        'X-Session-Id': session,
      },
      body: JSON.stringify({ model: `echo#${tag}`, max_tokens: 512, system: 'You are a helpful assistant.', messages: history }),
    })
    if (!response.ok) throw new Error(`messages: ${response.status} ${await response.text()}`)
    const answer = (await response.json()) as { content: unknown }
    history.push({ role: 'assistant', content: answer.content })
  }
  const sent = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as { body: { messages: never[] } }[]
  const prompts = sent.map(({ body }) => {
    const prompt = anthropicPrompt(body.messages)
    return JSON.stringify([prompt.system, prompt.messages]).replace(/,?"cache_control":\{[^}]*\}/g, '')
  })
  let shared = 0
  let total = 0
  for (let i = 1; i < prompts.length; i++) {
    shared += sharedPrefix(prompts[i]!, prompts[i - 1]!)
    total += prompts[i]!.length
  }
  const { compactions } = await worker.api('GET', `/v1/sessions/${session}/compactions?limit=100`)
  return { samples: [], counts: { turns: prompts.length, passes: compactions.length, shared, total } }
}

/** The Codex-style session's keys: without a prompt_cache_key (as the doors forwarded none before issue 52) and with Codex's. */
export const CODEX_CACHE_KEYS = ['no prompt_cache_key reaching the upstream', 'Codex’s prompt_cache_key forwarded'] as const

/**
 * Issue 52: the share of prompt tokens a provider's cache served over a long Codex-style session:
 * 200 turns through the Responses door, the whole input each time (`store: false`), its session
 * compacting every 50 turns (keeping 20), against the fake's `prefixcache` model — a cache as
 * OpenAI describes its own, keyed by `prompt_cache_key`: the shared prefix in 128-token blocks
 * from 1,024 on, none without a key.
 */
export async function codexCacheShare(worker: BenchWorker, key: (typeof CODEX_CACHE_KEYS)[number]): Promise<Measured> {
  const id = `codex-cache-${RUN}-${Math.random().toString(36).slice(2, 8)}`
  const tag = `codexcache${RUN}${Math.random().toString(36).slice(2, 8)}`
  const cacheKey = key === CODEX_CACHE_KEYS[1] ? { prompt_cache_key: id } : {}
  await worker.api('POST', '/v1/sessions', { id, policy: POLICY })
  const input: { role: string; content: string }[] = []
  for (let i = 0; i < TURNS; i++) {
    input.push({ role: 'user', content: message(i) })
    const response = await fetch(new URL('/v1/responses', worker.url), {
      method: 'POST',
      headers: { Authorization: worker.authorization, 'Content-Type': 'application/json', 'session-id': id },
      body: JSON.stringify({
        model: `prefixcache#${tag}`,
        instructions: 'You are a coding agent. '.repeat(400),
        input,
        store: false,
        ...cacheKey,
      }),
    })
    if (!response.ok) throw new Error(`responses: ${response.status} ${await response.text()}`)
    const answer = (await response.json()) as { output_text?: string; output: { content?: { text: string }[] }[] }
    input.push({ role: 'assistant', content: answer.output.at(-1)?.content?.[0]?.text ?? '' })
  }
  const sent = (await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as {
    usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } } | null
  }[]
  let prompt = 0
  let cached = 0
  for (const { usage } of sent) {
    prompt += usage?.prompt_tokens ?? 0
    cached += usage?.prompt_tokens_details?.cached_tokens ?? 0
  }
  const { compactions } = await worker.api('GET', `/v1/sessions/${id}/compactions?limit=100`)
  return { samples: [], counts: { calls: sent.length, passes: compactions.length, prompt, cached } }
}
