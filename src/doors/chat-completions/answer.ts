import { toOpenAIToolCall } from '../../contract/openai-messages'
import type { Usage } from '../../contract/turn-result'
import type { ToolCall } from '../../core'
import type { DoorAnswer } from '..'

/**
 * The front door's answers on the OpenAI wire: a `chat.completion` object, or the
 * `chat.completion.chunk` frames of a stream (the role first, then content pieces and tool-call
 * deltas by index, a finish chunk, the usage chunk when asked for).
 */

const wireUsage = (usage: Usage | null) =>
  usage && { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens }

/** The model an answer names: the one the upstream reported (stored with the reply), else the requested one. */
export const answeringModel = (answer: DoorAnswer, requested: string) =>
  typeof answer.reply.metadata.model === 'string' ? answer.reply.metadata.model : requested

/** A whole `chat.completion` (its id and time are the stored reply's, the same for a retry). */
export function chatCompletion(answer: DoorAnswer, requested: string) {
  const { reply } = answer
  const calls = answer.status === 'requires_action' ? (answer.reply.message.toolCalls ?? []) : []
  return {
    id: `chatcmpl-${reply.id}`,
    object: 'chat.completion' as const,
    created: Math.floor(Date.parse(reply.timestamp) / 1000),
    model: answeringModel(answer, requested),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant' as const,
          content: reply.message.content,
          ...(calls.length > 0 ? { tool_calls: calls.map(toOpenAIToolCall) } : {}),
        },
        finish_reason: answer.finishReason,
      },
    ],
    usage: wireUsage(answer.usage) ?? undefined,
  }
}

/** The chunks of one streamed completion, all with the same id, time and model. */
export function chunkWriter(model: string) {
  const id = `chatcmpl-${crypto.randomUUID().replaceAll('-', '')}`
  const created = Math.floor(Date.now() / 1000)
  let calls = 0
  const envelope = { id, object: 'chat.completion.chunk' as const, created, model }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...envelope,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  })
  return {
    role: () => chunk({ role: 'assistant', content: '' }),
    content: (text: string) => chunk({ content: text }),
    /** A whole call as one delta, at the next index. */
    toolCall: (call: ToolCall) => chunk({ tool_calls: [{ index: calls++, ...toOpenAIToolCall(call) }] }),
    finish: (reason: string) => chunk({}, reason),
    usage: (usage: Usage | null) => ({ ...envelope, choices: [], usage: wireUsage(usage) }),
    /** Whether any tool call went out. */
    sentCalls: () => calls > 0,
  }
}
