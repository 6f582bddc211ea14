import type { Message } from '../events'

const LABEL = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' } as const

/**
 * The one-line rendering of a message used for token estimates and the default summary prompt.
 *
 * @example
 * EventText.of({ role: 'user', content: 'Hi' }) // 'User: Hi'
 * EventText.of({ role: 'assistant', content: null,
 *   toolCalls: [{ id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' }] })
 * // 'Assistant [tool calls: weather({"city":"Paris"})]'
 */
export const EventText = {
  of(message: Message): string {
    const label = LABEL[message.role]
    const text = message.content ?? ''
    const calls = message.toolCalls ?? []
    const responses = message.toolResponses ?? []
    let bracket = ''
    if (calls.length > 0) {
      bracket = `[tool calls: ${calls.map((c) => `${c.name}(${c.arguments})`).join(', ')}]`
    } else if (responses.length > 0) {
      bracket = `[responses: ${responses.map((r) => `${r.name} → ${r.data}`).join(', ')}]`
    }
    if (bracket === '') return `${label}: ${text}`
    return text === '' ? `${label} ${bracket}` : `${label}: ${text} ${bracket}`
  },
}
