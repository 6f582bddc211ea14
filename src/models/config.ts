import { openAICompatible } from './openai-compatible'
import type { ChatModel } from './port'
import { withRetries } from './retry'
import { workersAI } from './workers-ai'

/** What a deployment's variables say about models (see the README's Configuration). */
export interface ModelSettings {
  /** Null when neither an OpenAI-compatible upstream nor the AI binding is configured. */
  model: ChatModel | null
  chatModel: string
  summaryModel: string
  /** The context budget of a prompt, in tokens. */
  contextTokens: number
  /** `max_tokens` for a reply. */
  replyTokens: number
  /** `max_tokens` for a summary. */
  summaryTokens: number
}

export const DEFAULTS = {
  contextTokens: 8192,
  replyTokens: 1024,
  summaryTokens: 1024,
  timeoutMs: 60_000,
  workersAIModel: '@cf/meta/llama-3.1-8b-instruct',
  openAIModel: 'gpt-4o-mini',
} as const

export const NOT_CONFIGURED =
  'no chat model is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, CHAT_MODEL) for an OpenAI-compatible upstream, or deploy with the AI binding (`wrangler deploy --env ai`)'

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value)
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback
}

/** Settings by the variables they were read from: read once per isolate and object. */
const cache = new WeakMap<Env, ModelSettings>()

/**
 * The models a deployment uses: an OpenAI-compatible upstream when `OPENAI_BASE_URL` is set,
 * else Workers AI when the `AI` binding is present, else none. Calls are retried when safe.
 *
 * @example
 * const { model, chatModel } = modelSettings(env)
 * if (!model) throw notConfigured()
 */
export function modelSettings(env: Env): ModelSettings {
  let settings = cache.get(env)
  if (!settings) {
    settings = readSettings(env)
    cache.set(env, settings)
  }
  return settings
}

function readSettings(env: Env): ModelSettings {
  const timeoutMs = positive(env.MODEL_TIMEOUT_MS, DEFAULTS.timeoutMs)
  let model: ChatModel | null = null
  let fallbackModel: string = DEFAULTS.openAIModel
  if (env.OPENAI_BASE_URL) {
    model = withRetries(openAICompatible({ baseUrl: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY, timeoutMs }))
  } else if (env.AI) {
    model = withRetries(workersAI({ binding: env.AI, timeoutMs }))
    fallbackModel = DEFAULTS.workersAIModel
  }
  const chatModel = env.CHAT_MODEL || fallbackModel
  return {
    model,
    chatModel,
    summaryModel: env.SUMMARY_MODEL || chatModel,
    contextTokens: positive(env.CHAT_CONTEXT_TOKENS, DEFAULTS.contextTokens),
    replyTokens: positive(env.CHAT_MAX_TOKENS, DEFAULTS.replyTokens),
    summaryTokens: positive(env.SUMMARY_MAX_TOKENS, DEFAULTS.summaryTokens),
  }
}
