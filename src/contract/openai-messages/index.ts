/**
 * The view as OpenAI chat-completions messages: the contract's `GET /view?format=openai`, and the
 * prompt the model adapters send. One rendering for both.
 */
import {
  analyzeView,
  isInline,
  type Message,
  type Metadata,
  type NewMessageEvent,
  pairToolResults,
  type Reasoning,
  type ToolCall,
} from '../../core'

/** An OpenAI chat-completions tool call. */
export interface OpenAIToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

/** An OpenAI chat-completions message. */
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[]; reasoning?: Reasoning[] }
  | { role: 'tool'; tool_call_id: string; content: string }

/** A tool call on the OpenAI wire (a prompt's, a chat completion's). */
export const toOpenAIToolCall = (call: ToolCall): OpenAIToolCall => ({
  id: call.id,
  type: 'function',
  function: { name: call.name, arguments: call.arguments },
})

/** Whether a call's arguments are a JSON object, as every provider that parses them requires. */
function isJsonObjectText(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * A stored tool call as a prompt sends it: arguments that are not a JSON object (a model's cut-off
 * or malformed output, stored as it came) go as `{"invalid_arguments": "<as stored>"}`, so no
 * provider that parses them refuses every later prompt, and the model still sees what it sent.
 */
export const promptToolCall = (call: ToolCall): OpenAIToolCall =>
  toOpenAIToolCall(
    isJsonObjectText(call.arguments) ? call : { ...call, arguments: JSON.stringify({ invalid_arguments: call.arguments }) },
  )

/** A client's OpenAI tool call as a stored one. */
export const fromOpenAIToolCall = (call: Pick<OpenAIToolCall, 'id' | 'function'>): ToolCall => ({
  id: call.id,
  name: call.function.name,
  arguments: call.function.arguments,
})

/** A prompt message as an OpenAI-wire upstream takes it: reasoning (another provider's) left out. */
export function withoutReasoning(message: OpenAIMessage): OpenAIMessage {
  if (message.role !== 'assistant' || message.reasoning === undefined) return message
  const { reasoning: _, ...rest } = message
  return rest
}

/** The text of the view's latest system message, or null when it has none. */
const latestSystemText = (view: readonly NewMessageEvent[]): string | null =>
  analyzeView(view).latestSystem?.message.content ?? null

/**
 * One stored message as OpenAI chat messages: assistant tool calls as `tool_calls` (see
 * {@link promptToolCall}) and, for a prompt (`reasoning`), its reasoning; one `tool` message per tool response, an inline system message in
 * place, nothing for the system prompt (the view's is given first).
 */
export function openAIMessagesOf(
  event: { message: Message; metadata: Metadata },
  options: { reasoning?: boolean } = {},
): OpenAIMessage[] {
  const { message } = event
  switch (message.role) {
    case 'system':
      return isInline(event) ? [{ role: 'system', content: message.content ?? '' }] : []
    case 'user':
      return [{ role: 'user', content: message.content ?? '' }]
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map(promptToolCall) } : {}),
          ...(options.reasoning && message.reasoning?.length ? { reasoning: message.reasoning } : {}),
        },
      ]
    case 'tool':
      return (message.toolResponses ?? []).map((response) => ({
        role: 'tool',
        tool_call_id: response.id,
        content: response.data,
      }))
  }
}

/**
 * A view as an OpenAI prompt: one system message first (the view's latest, or `system` when
 * given: a turn's own), the view's other events in order, rendered pairing-safe (see the core's
 * `pairToolResults`): each tool call followed by its result, a placeholder for one never
 * answered, a stored result without its call left out — valid on the wire whatever was appended.
 * An assistant message carries its `reasoning`: an adapter sends it to its provider only, or drops it.
 *
 * @example
 * toOpenAIMessages(view) // [{ role: 'system', ... }, { role: 'user', ... }, ...]
 * toOpenAIMessages(view, 'Be brief.') // the same, with the turn's system message instead
 */
export function toOpenAIMessages(view: readonly NewMessageEvent[], system = latestSystemText(view)): OpenAIMessage[] {
  const messages: OpenAIMessage[] = system !== null ? [{ role: 'system', content: system }] : []
  for (const item of pairToolResults(view)) {
    if (item.kind === 'result') messages.push({ role: 'tool', tool_call_id: item.id, content: item.data })
    else messages.push(...openAIMessagesOf(item.event, { reasoning: true }))
  }
  return messages
}
