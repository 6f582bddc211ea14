import type { Content, Message, Part, StoredPart, UrlPart } from '../events'

/**
 * A message's content as parts: text alone is a string; parts hold an image or a document (see
 * `Content`). These read and build it, whatever its form.
 */

/** An image or document part: stored (named by its blob) or known by its URL. */
export type MediaPart = StoredPart | UrlPart

export const isMediaPart = (part: Part): part is MediaPart => part.type === 'image' || part.type === 'document'
export const isStoredPart = (part: Part): part is StoredPart => isMediaPart(part) && 'blob' in part
export const isUrlPart = (part: Part): part is UrlPart => isMediaPart(part) && 'url' in part

/**
 * A content's parts: a string is one text part (none when empty).
 *
 * @example
 * partsOf('Hi') // [{ type: 'text', text: 'Hi' }]
 */
export const partsOf = (content: Content | null): Part[] =>
  content === null || content === '' ? [] : typeof content === 'string' ? [{ type: 'text', text: content }] : content

/**
 * The text of a content: a string as it is, parts' text joined with a newline (images and
 * documents left out).
 *
 * @example
 * textOf([{ type: 'text', text: 'Look' }, image, { type: 'text', text: 'here' }]) // 'Look\nhere'
 */
export function textOf(content: Content | null): string {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/**
 * Content from parts: text alone joined into a string with a newline (as a text-only client's
 * parts always were), else the parts as they are.
 *
 * @example
 * contentOf([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]) // 'a\nb'
 */
export function contentOf(parts: readonly Part[]): Content {
  return parts.some(isMediaPart) ? [...parts] : textOf([...parts])
}

/**
 * A content as text, each image or document written as `media` renders it (its placeholder for a
 * summarizer or a transcript, nothing for a token estimate).
 *
 * @example
 * renderText(parts, (part) => `[image: ${part.mediaType}]`) // 'Look\n[image: image/png]'
 */
export function renderText(content: Content | null, media: (part: MediaPart) => string): string {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content
    .map((part) => (part.type === 'text' ? part.text : media(part)))
    .filter((text) => text !== '')
    .join('\n')
}

/** The images and documents of a message: its content's, then its tool responses'. */
export function mediaOf(message: Message): MediaPart[] {
  const all = partsOf(message.content).filter(isMediaPart)
  for (const response of message.toolResponses ?? []) all.push(...partsOf(response.data).filter(isMediaPart))
  return all
}

/** The blobs a message names (each once). */
export function blobRefsOf(message: Message): string[] {
  const refs = new Set<string>()
  for (const part of mediaOf(message)) if ('blob' in part) refs.add(part.blob)
  return [...refs]
}

/** What identifies a part when two messages are compared: its text, or the bytes' name (or URL) and how it is shown — never what is read from the bytes. */
const partKey = (part: Part): unknown[] => {
  if (part.type === 'text') return ['text', part.text]
  const source = 'blob' in part ? part.blob : part.url
  return [part.type, source, part.detail ?? null, part.title ?? null]
}

/**
 * One text per content such that two contents are equal exactly when their texts are: a string
 * as itself (null ≡ ""), parts by {@link partKey} — the same image is the same part whether it came
 * as data, a data URL or a blob reference.
 *
 * @example
 * contentKey('Hi') === contentKey('Hi') // true
 */
export function contentKey(content: Content | null): string {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return JSON.stringify(content.map(partKey))
}
