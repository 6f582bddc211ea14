import { ServiceError } from '../contract/errors'
import { anthropic } from './anthropic'
import { openAICompatible } from './openai-compatible'
import type { ChatModel } from './port'
import { withRetries } from './retry'
import { workersAI } from './workers-ai'

/** What a deployment's variables say about models (docs/guides/configuration.md). */
export interface ModelSettings {
  /** Null when neither an OpenAI-compatible upstream nor the AI binding is configured. */
  model: ChatModel | null
  chatModel: string
  summaryModel: string
  /** The context budget of a prompt and its reply, in tokens: CHAT_CONTEXT_TOKENS. */
  contextTokens: number
  /** A model's context window: its MODEL_CONTEXT_TOKENS entry, else `contextTokens`. */
  contextTokensOf(model: string): number
  /** What is wrong with the model variables (MODEL_CONTEXT_TOKENS), or null: turns and summaries are then 503. */
  problem: string | null
  /** `max_tokens` for a reply. */
  replyTokens: number
  /** `max_tokens` for a summary. */
  summaryTokens: number
  /** How images and documents reach the model: their bytes, or their placeholder text (IMAGES_TO_MODEL=placeholder: a model without vision). */
  imagesToModel: 'bytes' | 'placeholder'
  /** Whether a model's upstream is sent Anthropic's thinking back: Anthropic's (a `claude…` model with ANTHROPIC_API_KEY set). */
  takesThinking(model: string): boolean
}

export const DEFAULTS = {
  contextTokens: 8192,
  replyTokens: 1024,
  summaryTokens: 1024,
  timeoutMs: 60_000,
  workersAIModel: '@cf/meta/llama-3.1-8b-instruct',
  openAIModel: 'gpt-4o-mini',
  anthropicModel: 'claude-sonnet-4-5',
  anthropicBaseUrl: 'https://api.anthropic.com',
} as const

/** Models Anthropic's upstream answers (when it is configured). */
export const isAnthropicModel = (model: string) => model.startsWith('claude')

/**
 * One model for every upstream: a `claude…` model goes to Anthropic when it is configured, every
 * other to the OpenAI-compatible upstream or Workers AI (`other`).
 */
function routed(claude: ChatModel, other: ChatModel | null): ChatModel {
  return {
    async chat(request) {
      if (isAnthropicModel(request.model)) return claude.chat(request)
      if (other) return other.chat(request)
      throw new ServiceError(
        'not_configured',
        `model "${request.model}": only Anthropic's upstream is configured (models named claude…); set OPENAI_BASE_URL for others`,
      )
    },
  }
}

export const NOT_CONFIGURED =
  'no chat model is configured: set OPENAI_BASE_URL (and OPENAI_API_KEY, CHAT_MODEL) for an OpenAI-compatible upstream, ANTHROPIC_API_KEY for Anthropic, or deploy with the AI binding (`wrangler deploy --env ai`)'

/** MODEL_CONTEXT_TOKENS read: a map of positive integers, or what is wrong with it. */
function modelContexts(text: string | undefined): { sizes: Map<string, number> } | { problem: string } {
  if (text === undefined || text.trim() === '') return { sizes: new Map() }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { problem: 'MODEL_CONTEXT_TOKENS is not valid JSON: set it to a JSON object { "<model>": tokens }' }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'MODEL_CONTEXT_TOKENS must be a JSON object { "<model>": tokens }' }
  }
  const sizes = new Map<string, number>()
  for (const [model, tokens] of Object.entries(parsed)) {
    if (!Number.isSafeInteger(tokens) || (tokens as number) < 1) {
      return { problem: `MODEL_CONTEXT_TOKENS["${model}"] must be a positive integer of tokens` }
    }
    sizes.set(model, tokens as number)
  }
  return { sizes }
}

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value)
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback
}

/**
 * The budget outside a turn (`/compact`, `/context`): the configured chat model's context, its
 * reply tokens, and what a prompt gets of them.
 */
export function chatModelBudget(settings: ModelSettings): { contextTokens: number; replyTokens: number; promptTokens: number } {
  const contextTokens = settings.contextTokensOf(settings.chatModel)
  return { contextTokens, replyTokens: settings.replyTokens, promptTokens: contextTokens - settings.replyTokens }
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
  if (env.ANTHROPIC_API_KEY) {
    const baseUrl = env.ANTHROPIC_BASE_URL || DEFAULTS.anthropicBaseUrl
    if (!model) fallbackModel = DEFAULTS.anthropicModel
    model = routed(withRetries(anthropic({ baseUrl, apiKey: env.ANTHROPIC_API_KEY, timeoutMs })), model)
  }
  const chatModel = env.CHAT_MODEL || fallbackModel
  const contextTokens = positive(env.CHAT_CONTEXT_TOKENS, DEFAULTS.contextTokens)
  const contexts = modelContexts(env.MODEL_CONTEXT_TOKENS)
  return {
    model,
    chatModel,
    summaryModel: env.SUMMARY_MODEL || chatModel,
    contextTokens,
    contextTokensOf: (name) => ('sizes' in contexts ? contexts.sizes.get(name) : undefined) ?? contextTokens,
    problem:
      ('problem' in contexts ? contexts.problem : null) ??
      imagesProblem(env.IMAGES_TO_MODEL) ??
      cacheKeyProblem(env.PROMPT_CACHE_KEY),
    replyTokens: positive(env.CHAT_MAX_TOKENS, DEFAULTS.replyTokens),
    summaryTokens: positive(env.SUMMARY_MAX_TOKENS, DEFAULTS.summaryTokens),
    imagesToModel: env.IMAGES_TO_MODEL?.trim() === 'placeholder' ? 'placeholder' : 'bytes',
    takesThinking: (name) => Boolean(env.ANTHROPIC_API_KEY) && isAnthropicModel(name),
  }
}

/** What is wrong with PROMPT_CACHE_KEY (unset, or `session`), or null. */
function cacheKeyProblem(value: string | undefined): string | null {
  const text = (value ?? '').trim()
  return text === '' || text === 'session' ? null : `PROMPT_CACHE_KEY: "${text}" is not session (or unset)`
}

/** What is wrong with IMAGES_TO_MODEL (`bytes`, the default, or `placeholder`), or null. */
function imagesProblem(value: string | undefined): string | null {
  const text = (value ?? '').trim()
  return text === '' || text === 'bytes' || text === 'placeholder'
    ? null
    : `IMAGES_TO_MODEL: "${text}" is neither bytes nor placeholder`
}
