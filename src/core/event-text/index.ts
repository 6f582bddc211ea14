import type { Content, Message } from '../events'
import { type MediaPart, renderText } from '../parts'
import { partPlaceholder } from '../parts/placeholder'

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
  /** `media` writes an image or a document (default: its placeholder; a token estimate writes nothing and counts it apart). */
  of(message: Message, media: (part: MediaPart) => string = partPlaceholder): string {
    const label = LABEL[message.role]
    const text = renderText(message.content, media)
    const dataOf = (data: Content) => renderText(data, media)
    const calls = message.toolCalls ?? []
    const responses = message.toolResponses ?? []
    let bracket = ''
    if (calls.length > 0) {
      bracket = `[tool calls: ${calls.map((c) => `${c.name}(${c.arguments})`).join(', ')}]`
    } else if (responses.length > 0) {
      bracket = `[responses: ${responses.map((r) => `${r.name} → ${dataOf(r.data)}`).join(', ')}]`
    }
    if (bracket === '') return `${label}: ${text}`
    return text === '' ? `${label} ${bracket}` : `${label}: ${text} ${bracket}`
  },
}
