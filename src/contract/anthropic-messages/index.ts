import { anthropicToolId } from '../anthropic-tool-id'
import type { OpenAIMessage } from '../openai-messages'

/**
 * Messages in the OpenAI shape as Anthropic Messages: tool results as `tool_result` blocks of one
 * user message (consecutive ones together), tool calls as `tool_use` blocks, tool ids made safe,
 * Anthropic's own reasoning first in its message (no other provider's). What the Anthropic
 * upstream sends and an `anthropic` export writes.
 */

export type AnthropicBlock = Record<string, unknown> & { type: string }
export type AnthropicRequestMessage = { role: 'user' | 'assistant' | 'system'; content: AnthropicBlock[] }

/** The name reasoning from Anthropic is kept under. */
export const ANTHROPIC = 'anthropic'

/** A call's arguments as a `tool_use` input: its JSON object, else what it sent kept under `invalid_arguments`. */
function inputOf(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {}
  return { invalid_arguments: text }
}

/** Anthropic refuses empty text blocks: an empty message says so instead. */
export const textBlock = (text: string | null): AnthropicBlock => ({
  type: 'text',
  text: text === null || text.trim() === '' ? '(empty)' : text,
})

/** One message other than a tool result, as Anthropic's. */
function anthropicMessage(message: Exclude<OpenAIMessage, { role: 'tool' }>): AnthropicRequestMessage {
  if (message.role !== 'assistant') return { role: message.role, content: [textBlock(message.content)] }
  const calls = (message.tool_calls ?? []).map((call) => ({
    type: 'tool_use',
    id: anthropicToolId(call.id),
    name: call.function.name,
    input: inputOf(call.function.arguments),
  }))
  const text = message.content ?? ''
  // Its own reasoning goes back first, as it came (no other provider's is ever sent).
  const thinking = (message.reasoning ?? [])
    .filter((block) => block.provider === ANTHROPIC)
    .map(({ provider: _, ...block }) => block as AnthropicBlock)
  return {
    role: 'assistant',
    content: [...thinking, ...(text.trim() !== '' || calls.length === 0 ? [textBlock(text)] : []), ...calls],
  }
}

/**
 * Messages as Anthropic's, one at a time as they are taken (consecutive tool results wait for
 * the message after them): a system message stays a `system` message in place.
 *
 * @example
 * [...anthropicMessages([{ role: 'tool', tool_call_id: 'c1', content: 'ok' }])] // [{ role: 'user', content: [tool_result] }]
 */
export function* anthropicMessages(messages: Iterable<OpenAIMessage>): Generator<AnthropicRequestMessage> {
  let results: AnthropicRequestMessage | null = null
  for (const message of messages) {
    if (message.role === 'tool') {
      const result = { type: 'tool_result', tool_use_id: anthropicToolId(message.tool_call_id), content: message.content }
      if (results) results.content.push(result)
      else results = { role: 'user', content: [result] }
      continue
    }
    if (results) yield results
    results = null
    yield anthropicMessage(message)
  }
  if (results) yield results
}
