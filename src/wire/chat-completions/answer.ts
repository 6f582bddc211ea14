import { toOpenAIToolCall } from '../../contract/openai-messages'
import type { Usage } from '../../contract/turn-result'
import type { ToolCall } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'

/**
 * The front door's answers on the OpenAI wire: a `chat.completion` object, or the
 * `chat.completion.chunk` frames of a stream (the role first, then content pieces and tool-call
 * deltas by index, a finish chunk, the usage chunk when asked for).
 */

const wireUsage = (usage: Usage | null) =>
  usage && {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    ...(usage.cachedPromptTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } } : {}),
  }

/** A whole `chat.completion` (its id and time are the stored reply's, the same for a retry). */
export function chatCompletion(answer: DoorAnswer, requested: string) {
  const { reply } = answer
  const calls = requestedCalls(answer)
  return {
    id: completionId(reply.id),
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

/** The completion id of an answer: its reply's, so a retry answers the same id, streamed or not. */
export const completionId = (replyId: string) => `chatcmpl-${replyId}`

/** The chunks of one streamed completion, all with the same id, time and model. */
export function chunkWriter(id: string, model: string) {
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
