import { analyzeView, type MessageEvent } from '../../core'

/** An OpenAI chat-completions message. */
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant'
      content: string | null
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
    }
  | { role: 'tool'; tool_call_id: string; content: string }

/**
 * A view as OpenAI chat messages: the latest system message only, first; assistant tool calls
 * as `tool_calls`; one `tool` message per tool response.
 *
 * @example
 * toOpenAIMessages(view) // [{ role: 'system', ... }, { role: 'user', ... }, ...]
 */
export function toOpenAIMessages(view: readonly MessageEvent[]): OpenAIMessage[] {
  const latestSystem = analyzeView(view).latestSystem
  const messages: OpenAIMessage[] = latestSystem ? [{ role: 'system', content: latestSystem.message.content ?? '' }] : []
  for (const { message } of view) {
    switch (message.role) {
      case 'system':
        break
      case 'user':
        messages.push({ role: 'user', content: message.content ?? '' })
        break
      case 'assistant':
        messages.push({
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        })
        break
      case 'tool':
        for (const response of message.toolResponses ?? []) {
          messages.push({ role: 'tool', tool_call_id: response.id, content: response.data })
        }
        break
    }
  }
  return messages
}
