import { ServiceError } from '../contract/errors'
import type { OpenAIMessage } from '../contract/openai-messages'
import type { ChatOptions, ToolChoiceInput, ToolInput } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import type { Reasoning, ToolCall } from '../core'

/** One chat-completion call. */
export interface ChatRequest {
  model: string
  messages: OpenAIMessage[]
  /** Always sent: some models default to a few hundred tokens otherwise. */
  maxTokens: number
  /** When given, the call streams and this receives each piece of text as it arrives. */
  onDelta?: (text: string) => void
  /** Streamed calls only: receives each tool call of the reply once it is whole, in reply order. */
  onToolCall?: (call: ToolCall) => void
  /** Streamed calls only: receives each reasoning block of the reply once it is whole (an Anthropic upstream's). */
  onReasoning?: (block: Reasoning) => void
  /** The client's tools, as OpenAI function tools (sent on this call only). */
  tools?: ToolInput[]
  toolChoice?: ToolChoiceInput
  parallelToolCalls?: boolean
  /** Sampling options (their `maxTokens` is already in `maxTokens`). */
  options?: Omit<ChatOptions, 'maxTokens'>
  /** What only an Anthropic upstream is given (see {@link AnthropicExtras}); every other upstream ignores it. */
  anthropic?: AnthropicExtras
  /** Where in `messages` the view's summary ends: an upstream with cache breakpoints places one after it. */
  summaryIndex?: number
}

/** A Messages client's request fields the door does not interpret (`thinking`, `output_config`, …) and its `anthropic-beta`. */
export interface AnthropicExtras {
  fields?: Record<string, unknown>
  beta?: string
}

export interface ChatReply {
  content: string | null
  /** As the model made them (in the order `onToolCall` had them); an `id` it did not give is '' (the turn mints one). */
  toolCalls: ToolCall[]
  /** As the upstream reported it; null when it did not. */
  usage: Usage | null
  /** `stop`, `length`, `tool_calls`… as the upstream reported it (the chat-completions door passes it on). */
  finishReason: string | null
  /** The stop sequence that ended the reply, when the upstream says which (Anthropic's `stop_sequence`; `finishReason` is `stop`). */
  stopSequence?: string
  /** The model the upstream says answered, when it says (stored with the reply). */
  model?: string | null
  /** What the upstream returned of its reasoning, under its name (see the core's `Reasoning`). */
  reasoning?: Reasoning[]
}

/**
 * The chat-model port: an OpenAI-compatible upstream over fetch, or Workers AI.
 *
 * @example
 * const reply = await model.chat({ model: 'gpt-4o-mini', messages, maxTokens: 1024 })
 */
export interface ChatModel {
  chat(request: ChatRequest): Promise<ChatReply>
}

export type UpstreamFailure =
  | 'timeout' // no answer (or no next chunk) in time
  | 'status' // a non-2xx status
  | 'context_length' // the upstream says the prompt does not fit its context window
  | 'malformed' // an answer that is not the protocol
  | 'transport' // the connection failed
  | 'cut_off' // a stream that ended before it finished

export interface UpstreamErrorOptions {
  status?: number
  outputStarted?: boolean
  /** A 429 or an overload the client should see as such (an Anthropic upstream's), with its `retry-after`. */
  passOn?: { retryAfter?: string }
}

/** A failed model call, with what is needed to decide on a retry. */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError'
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    readonly options: UpstreamErrorOptions = {},
  ) {
    super(message)
  }

  /** 429s, 5xx and failed connections before any output may be retried; nothing else. */
  get retryable(): boolean {
    if (this.options.outputStarted) return false
    const status = this.options.status
    return (
      this.failure === 'transport' || (this.failure === 'status' && status !== undefined && (status === 429 || status >= 500))
    )
  }
}

/** The `usage` object of the OpenAI wire format (Workers AI uses it too). */
export type WireUsage =
  | {
      prompt_tokens?: number
      completion_tokens?: number
      total_tokens?: number
      prompt_tokens_details?: { cached_tokens?: number } | null
    }
  | null
  | undefined

/** Usage as the upstream reported it (the prompt tokens it read from its cache too), or null when it did not. */
export const usageOf = (usage: WireUsage): Usage | null => {
  if (!usage || typeof usage.prompt_tokens !== 'number') return null
  const cached = usage.prompt_tokens_details?.cached_tokens
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens ?? 0,
    totalTokens: usage.total_tokens ?? usage.prompt_tokens + (usage.completion_tokens ?? 0),
    ...(typeof cached === 'number' ? { cachedPromptTokens: cached } : {}),
  }
}

/** Upstream error texts that mean "the prompt is too long" (OpenAI, vLLM, llama.cpp, Ollama, Workers AI). */
const CONTEXT_LENGTH =
  /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|exceeds? (the )?(model'?s? )?(max|context)/i

export const isContextLengthMessage = (text: string): boolean => CONTEXT_LENGTH.test(text)

/**
 * A failed model call in the contract's words, or the error itself when it is not one: the one
 * place an upstream failure becomes a contract error. An Anthropic upstream's own 429 (with its
 * `Retry-After`) and its overload (529) are passed on as such; anything else is a 502.
 */
export function toServiceError(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error
  const { status, passOn } = error.options
  if (passOn) {
    const headers: Record<string, string> = passOn.retryAfter ? { 'Retry-After': passOn.retryAfter } : {}
    if (status === 429) return new ServiceError('rate_limited', `the model's upstream is rate limited: ${error.message}`, headers)
    return new ServiceError('upstream_overloaded', `the model's upstream is overloaded: ${error.message}`, headers)
  }
  return new ServiceError('upstream_error', `the model failed (${error.failure}): ${error.message}`)
}
