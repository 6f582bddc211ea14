import { anthropicToolId } from '../../contract/anthropic-tool-id'
import type { AnthropicMessage } from '../../contract/schemas'
import type { Usage } from '../../contract/turn-result'
import type { Reasoning, ToolCall } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'

/** The Messages door's answers on the Anthropic wire: a `message` object (its stream: `./stream`). */

/** The message id of an answer: its reply's, so a retry answers the same id. */
export const messageId = (replyId: string) => `msg_${replyId}`

/** The upstream's finish reason in Anthropic's words (an Anthropic upstream's own pass as they are). */
const STOP_REASON: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  refusal: 'refusal',
  pause_turn: 'pause_turn',
}

/** The answer's `stop_reason` and `stop_sequence`: `stop_sequence` and the sequence when its upstream named one. */
export const stopOf = (answer: DoorAnswer) => ({
  stop_reason:
    answer.status === 'requires_action'
      ? 'tool_use'
      : answer.stopSequence !== undefined
        ? 'stop_sequence'
        : Object.hasOwn(STOP_REASON, answer.finishReason)
          ? STOP_REASON[answer.finishReason]!
          : 'end_turn',
  stop_sequence: answer.stopSequence ?? null,
})

/**
 * Usage in Anthropic's meaning: `input_tokens` is what the upstream read of the (compacted)
 * prompt outside its cache; what it read from or wrote to the cache in their own fields; 0 for
 * what it did not report.
 */
export function anthropicUsage(usage: Usage | null) {
  const read = usage?.cachedPromptTokens ?? 0
  const written = usage?.cacheWriteTokens ?? 0
  return {
    input_tokens: Math.max(0, (usage?.promptTokens ?? 0) - read - written),
    output_tokens: usage?.completionTokens ?? 0,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  }
}

/** A call's arguments as a `tool_use` input: its JSON object, else what it sent kept under `invalid_arguments`. */
export function inputOf(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {}
  return { invalid_arguments: call.arguments }
}

/** A call as this wire shows it: its id made safe for Anthropic's pattern (the log keeps the original). */
export const toolUse = (call: ToolCall) => ({
  type: 'tool_use' as const,
  id: anthropicToolId(call.id),
  name: call.name,
  input: inputOf(call),
})

/** The provider whose reasoning this wire shows: Anthropic's thinking blocks, as they came (no other's is ever rendered). */
const ANTHROPIC = 'anthropic'

/** A stored reasoning block as the thinking block it was, when it is Anthropic's. */
export const thinkingBlock = ({ provider, ...block }: Reasoning) => (provider === ANTHROPIC ? [block] : [])

/** An answer's thinking blocks: its reply's Anthropic reasoning. */
export const thinkingOf = (answer: DoorAnswer) => (answer.reply.message.reasoning ?? []).flatMap(thinkingBlock)

/** A whole `message` (text, then the calls the client is asked to run). */
export function anthropicMessage(answer: DoorAnswer, requested: string): AnthropicMessage {
  const text = answer.reply.message.content ?? ''
  return {
    id: messageId(answer.reply.id),
    type: 'message' as const,
    role: 'assistant' as const,
    model: answeringModel(answer, requested),
    content: [
      ...thinkingOf(answer),
      ...(text !== '' ? [{ type: 'text' as const, text }] : []),
      ...requestedCalls(answer).map(toolUse),
    ],
    ...stopOf(answer),
    usage: anthropicUsage(answer.usage),
  }
}
