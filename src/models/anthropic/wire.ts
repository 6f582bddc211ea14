import { anthropicToolId } from '../../contract/anthropic-tool-id'
import type { OpenAIMessage } from '../../contract/openai-messages'
import type { Usage } from '../../contract/turn-result'
import type { ChatRequest } from '../port'

/**
 * The Anthropic Messages wire, as the Anthropic upstream speaks it: a prompt in the port's
 * OpenAI shape turned into a Messages request (the system prompt apart, tool results as
 * `tool_result` blocks of a user message, tool calls as `tool_use` blocks), the service's own
 * cache markers placed, and an answer's usage and stop reason in the port's terms.
 */

/** The name reasoning from this upstream is kept under. */
export const PROVIDER = 'anthropic'

/** Reasoning blocks of an answer, kept under the provider's name. */
export const REASONING_TYPES = new Set(['thinking', 'redacted_thinking'])

/** The service's prompt-cache marker: on the system prompt and on the newest message (a client's are never sent). */
const CACHE = { type: 'ephemeral' } as const

type Block = Record<string, unknown> & { type: string }
export type AnthropicMessage = { role: 'user' | 'assistant' | 'system'; content: Block[] }

/** A call's arguments as a `tool_use` input: its JSON object, else what it sent kept under `invalid_arguments`. */
function inputOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {}
  return { invalid_arguments: text }
}

/** Anthropic refuses empty text blocks: an empty message says so instead. */
const textBlock = (text: string | null): Block => ({ type: 'text', text: text === null || text.trim() === '' ? '(empty)' : text })

/**
 * A prompt as Anthropic messages: its first system message is the system prompt; a later one (an
 * inline system message) stays in place; tool messages become `tool_result` blocks of one user
 * message; the newest message's last block carries the cache marker.
 */
export function anthropicPrompt(messages: readonly OpenAIMessage[]): {
  system: Block[] | undefined
  messages: AnthropicMessage[]
} {
  let system: Block[] | undefined
  const out: AnthropicMessage[] = []
  for (const [i, message] of messages.entries()) {
    if (message.role === 'system' && i === 0) {
      system = [{ ...textBlock(message.content), cache_control: CACHE }]
      continue
    }
    if (message.role === 'tool') {
      const result: Block = { type: 'tool_result', tool_use_id: anthropicToolId(message.tool_call_id), content: message.content }
      const previous = out.at(-1)
      if (previous?.role === 'user' && previous.content.every((block) => block.type === 'tool_result'))
        previous.content.push(result)
      else out.push({ role: 'user', content: [result] })
      continue
    }
    if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map((call) => ({
        type: 'tool_use',
        id: anthropicToolId(call.id),
        name: call.function.name,
        input: inputOf(call.function.arguments),
      }))
      const text = message.content ?? ''
      // Its own reasoning goes back first, as it came (no other provider's is ever sent).
      const thinking = (message.reasoning ?? [])
        .filter((block) => block.provider === PROVIDER)
        .map(({ provider: _, ...block }) => block as Block)
      out.push({
        role: 'assistant',
        content: [...thinking, ...(text.trim() !== '' || calls.length === 0 ? [textBlock(text)] : []), ...calls],
      })
      continue
    }
    out.push({ role: message.role, content: [textBlock(message.content)] })
  }
  const newest = out.at(-1)?.content
  if (newest?.length) newest[newest.length - 1] = { ...newest.at(-1)!, cache_control: CACHE }
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
  stopReason ? (FINISH[stopReason] ?? stopReason) : null
