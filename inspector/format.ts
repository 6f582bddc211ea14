import { renderText } from '../src/core/parts'
import { partPlaceholder } from '../src/core/parts/placeholder'
import type { EventJson } from './types'

/** A message's content as text: its text, each image or document as its placeholder. */
export const contentText = (content: NonNullable<EventJson['message']>['content']): string => renderText(content, partPlaceholder)

/** A content's text alone, its images and documents left to be shown as themselves (see `media.tsx`). */
export const textAlone = (content: NonNullable<EventJson['message']>['content']): string => renderText(content, () => '')

/** Numbers and times as the page shows them. */
export const count = (n: number) => n.toLocaleString('en-US')
/** A count and its noun, plural unless it is one: `counted(1, 'compaction')` is "1 compaction". */
export const counted = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`
export const time = (iso: string) => new Date(iso).toLocaleString()

/** An event's text in one string: content, tool calls, tool results. */
export function eventText(event: EventJson): string {
  const message = event.message
  if (!message) return ''
  const parts: string[] = []
  if (message.content) parts.push(contentText(message.content))
  for (const call of message.toolCalls ?? []) parts.push(`→ ${call.name}(${call.arguments})  [${call.id}]`)
  for (const response of message.toolResponses ?? [])
    parts.push(`← ${response.name} [${response.id}]: ${contentText(response.data)}`)
  return parts.join('\n')
}

/** `/v1/sessions/<id><rest>`, the id escaped. */
export const sessionPath = (id: string, rest = '') => `/v1/sessions/${encodeURIComponent(id)}${rest}`

/** A session id as the API takes it (`[A-Za-z0-9._:-]{1,128}`). */
export const isSessionId = (id: string) => /^[A-Za-z0-9._:-]{1,128}$/.test(id)
