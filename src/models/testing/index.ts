/** Fixtures for the model adapters' tests, against the fake OpenAI-compatible upstream on loopback. */
import { env } from 'cloudflare:workers'
import { type ChatRequest, UpstreamError } from '../port'

export const baseUrl = env.OPENAI_BASE_URL!
const upstream = baseUrl.replace(/\/v1$/, '')

let n = 0
/** A unique tag: the fake upstream records the requests made with models named `<mode>#<tag>`. */
export const tag = () => `oa${Date.now().toString(36)}${++n}`

/** A short chat request to a model of the fake upstream (its name picks the fake's behaviour). */
export const request = (modelName: string, onDelta?: (text: string) => void): ChatRequest => ({
  model: modelName,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello there' },
  ],
  maxTokens: 77,
  onDelta,
})

/** What the fake upstream received for a tag. */
export const recorded = async (t: string) =>
  (await (await fetch(`${upstream}/__requests?tag=${t}`)).json()) as { body: Record<string, unknown>; authorization?: string }[]

/** The UpstreamError a call fails with (anything else fails the test). */
export async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof UpstreamError) return error
    throw error
  }
  throw new Error('expected an UpstreamError')
}
