import { type SessionEvent, textOf } from '../../core'
import type { SessionRecord } from './session-row'

/** Characters of the first user message's first line a title keeps. */
export const FIRST_LINE_CHARS = 80
/** Characters of the first user message a session keeps for a listing's `q`. */
export const FIRST_MESSAGE_CHARS = 200

/** A user's own message's text (not a summary's), its text parts' when it has images or documents; null for any other event. */
const userText = (event: SessionEvent): string | null =>
  event.type === 'MESSAGE' && event.message.role === 'user' && !event.synthetic ? textOf(event.message.content) : null

/**
 * A message event's first line as a title, when it is a user's own message (not a summary's):
 * its text's first line that is not blank, cut at {@link FIRST_LINE_CHARS} characters.
 *
 * @example
 * firstLineOf(event) // 'Weather in Paris?'
 */
export function firstLineOf(event: SessionEvent): string | null {
  const content = userText(event)
  if (content === null) return null
  const line = content
    .split(/\r?\n/)
    .map((piece) => piece.trim())
    .find((piece) => piece !== '')
  return line === undefined ? null : Array.from(line).slice(0, FIRST_LINE_CHARS).join('')
}

type Titled = Pick<SessionRecord, 'title' | 'titleSource' | 'firstMessage'>

/**
 * What a write gives a session without them: its first user message's start, and (when it has no
 * title) that message's first line as its title. A title of the client's or the model's stays.
 *
 * @example
 * const next = { ...record, ...titleAfter(record, events) }
 */
export function titleAfter(record: SessionRecord, events: readonly SessionEvent[]): Titled {
  const kept: Titled = { title: record.title, titleSource: record.titleSource, firstMessage: record.firstMessage }
  if (record.firstMessage !== null && record.titleSource !== null) return kept
  for (const event of events) {
    const text = userText(event)
    if (text === null || text.trim() === '') continue
    const firstMessage = record.firstMessage ?? Array.from(text.trim()).slice(0, FIRST_MESSAGE_CHARS).join('')
    if (record.titleSource !== null) return { ...kept, firstMessage }
    return { title: firstLineOf(event), titleSource: 'first_message', firstMessage }
  }
  return kept
}

/** Events read from the start of the log for a title of the first user message again (a client's title taken back). */
export const TITLE_LOOKBACK = 100

/**
 * The title a session goes back to when its client's is taken back: the first line of its first
 * user message among `events` (the log's first {@link TITLE_LOOKBACK}), or none.
 */
export function firstMessageTitle(events: readonly SessionEvent[]): Pick<SessionRecord, 'title' | 'titleSource'> {
  for (const event of events) {
    const line = firstLineOf(event)
    if (line !== null) return { title: line, titleSource: 'first_message' }
  }
  return { title: null, titleSource: null }
}
