import { toOpenAIToolCall } from '../../contract/openai-messages'
import type { ChatCompletion, ChatCompletionUsage } from '../../contract/schemas'
import type { Usage } from '../../contract/turn-result'
import { textOf } from '../../core'
import { answeringModel, type DoorAnswer, requestedCalls } from '../../doors'

/** The chat-completions door's answers on the OpenAI wire: a `chat.completion` object (its stream: `./stream`). */

/** Usage in OpenAI's names (null: the upstream reported none). */
export const wireUsage = (usage: Usage | null): ChatCompletionUsage | null =>
  usage && {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
    ...(usage.cachedPromptTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } } : {}),
  }

/** A whole `chat.completion` (its id and time are the stored reply's, the same for a retry). */
export function chatCompletion(answer: DoorAnswer, requested: string): ChatCompletion {
  const { reply } = answer
  const calls = requestedCalls(answer)
  return {
    id: completionId(reply.id),
    object: 'chat.completion' as const,
    created: Math.floor(Date.parse(reply.timestamp) / 1000),
    model: answeringModel(answer, requested),
    choices: [
      {
        index: 0 as const,
        message: {
          role: 'assistant' as const,
          content: reply.message.content === null ? null : textOf(reply.message.content),
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
