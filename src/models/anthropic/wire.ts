import {
  ANTHROPIC,
  type AnthropicBlock,
  type AnthropicRequestMessage,
  anthropicMessages,
  textBlock,
} from '../../contract/anthropic-messages'
import { type OpenAIMessage, openAIText } from '../../contract/openai-messages'
import type { Usage } from '../../contract/turn-result'
import type { ChatRequest } from '../port'

/**
 * The Anthropic Messages wire, as the Anthropic upstream speaks it: a prompt in the port's
 * OpenAI shape turned into a Messages request (the system prompt apart, tool results as
 * `tool_result` blocks of a user message, tool calls as `tool_use` blocks), the service's own
 * cache markers placed, and an answer's usage and stop reason in the port's terms.
 */

/** The name reasoning from this upstream is kept under. */
export const PROVIDER = ANTHROPIC

/** Reasoning blocks of an answer, kept under the provider's name. */
export const REASONING_TYPES = new Set(['thinking', 'redacted_thinking'])

/** The service's prompt-cache marker: on the system prompt, after the summary and on the newest message (a client's are never sent). */
const CACHE = { type: 'ephemeral' } as const

export type { AnthropicRequestMessage }

/**
 * A prompt as Anthropic messages (see `contract/anthropic-messages`): its first system message is
 * the system prompt; a later one (an inline system message) stays in place. The cache markers: on
 * the system prompt, on the summary's message (`summaryIndex`, in `messages`: what the view keeps
 * from pass to pass, so a cache written once is read until the next summary) and on the newest
 * message's last block.
 */
export function anthropicPrompt(
  messages: readonly OpenAIMessage[],
  summaryIndex?: number,
): {
  system: AnthropicBlock[] | undefined
  messages: AnthropicRequestMessage[]
} {
  const first = messages[0]
  const system = first?.role === 'system' ? [{ ...textBlock(openAIText(first.content)), cache_control: CACHE }] : undefined
  const rest = system ? messages.slice(1) : messages
  const out = [...anthropicMessages(rest)]
  const marked = (at: number) => {
    const content = out[at]?.content
    if (content?.length) content[content.length - 1] = { ...content.at(-1)!, cache_control: CACHE }
  }
  // The summary is no tool message: the messages up to it become as many Anthropic messages, itself the last.
  const summary = summaryIndex === undefined || summaryIndex < (system ? 1 : 0) ? -1 : summaryIndex - (system ? 1 : 0)
  if (summary >= 0 && rest[summary]?.role !== 'tool') marked([...anthropicMessages(rest.slice(0, summary + 1))].length - 1)
  marked(out.length - 1)
  return { system, messages: out }
}

/** The request's tools and tool choice in Anthropic's names. */
export function anthropicTools(request: ChatRequest): Record<string, unknown> {
  const tools = request.tools?.map((tool) => ({
    name: tool.function.name,
    ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
    input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
  }))
  const choice = request.toolChoice
  const parallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {}
  const toolChoice =
    choice === undefined
      ? request.parallelToolCalls === false && tools
        ? { type: 'auto', ...parallel }
        : undefined
      : choice === 'none'
        ? { type: 'none' }
        : choice === 'required'
          ? { type: 'any', ...parallel }
          : choice === 'auto'
            ? { type: 'auto', ...parallel }
            : { type: 'tool', name: choice.function.name, ...parallel }
  return { ...(tools ? { tools } : {}), ...(toolChoice && tools ? { tool_choice: toolChoice } : {}) }
}

/** Anthropic's `usage`. */
export type AnthropicUsage = {
  input_tokens?: number
  output_tokens?: number
  cache_creation_input_tokens?: number | null
  cache_read_input_tokens?: number | null
}

/** Usage in the port's terms: every prompt token read, the cache's among them. */
export function usageOfAnthropic(usage: AnthropicUsage | undefined): Usage | null {
  if (!usage || typeof usage.input_tokens !== 'number') return null
  const read = usage.cache_read_input_tokens ?? 0
  const written = usage.cache_creation_input_tokens ?? 0
  const promptTokens = usage.input_tokens + read + written
  const completionTokens = usage.output_tokens ?? 0
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    cachedPromptTokens: read,
    cacheWriteTokens: written,
  }
}

/** Anthropic's stop reasons in the port's (OpenAI's) names. */
const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

export const finishReasonOf = (stopReason: string | null | undefined): string | null =>
  stopReason ? (Object.hasOwn(FINISH, stopReason) ? FINISH[stopReason]! : stopReason) : null

/** The stop sequence an answer stopped at, as the port carries it: only with the `stop_sequence` stop reason. */
export const stopSequenceOf = (stopReason: string | null | undefined, sequence: unknown): { stopSequence?: string } =>
  stopReason === 'stop_sequence' && typeof sequence === 'string' ? { stopSequence: sequence } : {}
