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

/** The text of the view's latest system message, or null when it has none. */
const latestSystemText = (view: readonly MessageEvent[]) => analyzeView(view).latestSystem?.message.content ?? null

/**
 * A view as OpenAI chat messages: one system message first (the view's latest, or `system` when
 * given: a turn's own), the view's other events in order; assistant tool calls as `tool_calls`;
 * one `tool` message per tool response.
 *
 * @example
 * toOpenAIMessages(view) // [{ role: 'system', ... }, { role: 'user', ... }, ...]
 * toOpenAIMessages(view, 'Be brief.') // the same, with the turn's system message instead
 */
export function toOpenAIMessages(view: readonly MessageEvent[], system: string | null = latestSystemText(view)): OpenAIMessage[] {
  const messages: OpenAIMessage[] = system !== null ? [{ role: 'system', content: system }] : []
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
