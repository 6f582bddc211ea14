import { anthropicToolId } from '../../contract/anthropic-tool-id'
import type { Usage } from '../../contract/turn-result'
import type { Reasoning, ToolCall } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'

/**
 * The Messages door's answers on the Anthropic wire: a `message` object, or the events of a
 * stream (`message_start`, a `ping`, each content block's start, deltas and stop, `message_delta`
 * with the stop reason and usage, `message_stop`).
 */

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
const stopOf = (answer: DoorAnswer) => ({
  stop_reason:
    answer.status === 'requires_action'
      ? 'tool_use'
      : answer.stopSequence !== undefined
        ? 'stop_sequence'
        : (STOP_REASON[answer.finishReason] ?? 'end_turn'),
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
function inputOf(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {}
  return { invalid_arguments: call.arguments }
}

/** A call as this wire shows it: its id made safe for Anthropic's pattern (the log keeps the original). */
const toolUse = (call: ToolCall) => ({
  type: 'tool_use' as const,
  id: anthropicToolId(call.id),
  name: call.name,
  input: inputOf(call),
})

/** The provider whose reasoning this wire shows: Anthropic's thinking blocks, as they came (no other's is ever rendered). */
const ANTHROPIC = 'anthropic'

/** A stored reasoning block as the thinking block it was, when it is Anthropic's. */
const thinkingBlock = ({ provider, ...block }: Reasoning) => (provider === ANTHROPIC ? [block] : [])

/** An answer's thinking blocks: its reply's Anthropic reasoning. */
export const thinkingOf = (answer: DoorAnswer) => (answer.reply.message.reasoning ?? []).flatMap(thinkingBlock)

/** A whole `message` (text, then the calls the client is asked to run). */
export function anthropicMessage(answer: DoorAnswer, requested: string) {
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

/** One server-sent event of the stream: its name and data. */
export interface StreamEvent {
  event: string
  data: Record<string, unknown>
}

/**
 * The events of one streamed message, in order: blocks are opened as their first piece comes
 * and closed before the next one opens.
 */
export function messageStream(model: string) {
  let index = -1
  let open: 'text' | null = null
  let begun = false
  const event = (type: string, fields: Record<string, unknown> = {}): StreamEvent => ({ event: type, data: { type, ...fields } })
  const close = (): StreamEvent[] => {
    if (open === null) return []
    open = null
    return [event('content_block_stop', { index })]
  }
  return {
    /** `message_start` (the message's id) and a ping, once: nothing when the message has begun. */
    begin(id: string): StreamEvent[] {
      if (begun) return []
      begun = true
      return [
        event('message_start', {
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: anthropicUsage(null),
          },
        }),
        event('ping'),
      ]
    },
    ping: (): StreamEvent[] => [event('ping')],
    text(text: string): StreamEvent[] {
      const opening =
        open === 'text'
          ? []
          : [...close(), event('content_block_start', { index: ++index, content_block: { type: 'text', text: '' } })]
      open = 'text'
      return [...opening, event('content_block_delta', { index, delta: { type: 'text_delta', text } })]
    },
    /** A thinking block, whole: its text and signature as one delta each. */
    reasoning(block: Reasoning): StreamEvent[] {
      const [thinking] = thinkingBlock(block)
      if (!thinking) return []
      const closing = close()
      const opening = event('content_block_start', {
        index: ++index,
        content_block: thinking.type === 'thinking' ? { type: 'thinking', thinking: '', signature: '' } : thinking,
      })
      const deltas =
        thinking.type === 'thinking'
          ? [
              event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: thinking.thinking ?? '' } }),
              event('content_block_delta', { index, delta: { type: 'signature_delta', signature: thinking.signature ?? '' } }),
            ]
          : []
      return [...closing, opening, ...deltas, event('content_block_stop', { index })]
    },
    toolCall(call: ToolCall): StreamEvent[] {
      const events = [
        ...close(),
        event('content_block_start', {
          index: ++index,
          content_block: { ...toolUse(call), input: {} },
        }),
        event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(inputOf(call)) } }),
        event('content_block_stop', { index }),
      ]
      return events
    },
    end: (answer: DoorAnswer): StreamEvent[] => [
      ...close(),
      event('message_delta', {
        delta: stopOf(answer),
        usage: anthropicUsage(answer.usage),
      }),
      event('message_stop'),
    ],
  }
}
