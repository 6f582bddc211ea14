import { type Content, contentOf, type ImageDetail, isMediaPart, type Part } from '../../core'
import { checkMediaCount, type MediaIntake } from '../media'

/** A content's text: the string, or its text parts joined with a newline. */
export const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('\n')
      : ''

type ItemPart = { type: string; text?: string; image_url?: string; detail?: ImageDetail } & Record<string, unknown>

/**
 * An item's content (a message's, a `function_call_output`'s): text, or parts — `input_text`,
 * `input_image` (`image_url`: a data URL, or https) and `input_file` (`file_data` as a data URL,
 * or `file_url`); a file by id (`file_id`) is refused as `unsupported`.
 */
export async function itemContent(field: string, content: unknown, media: MediaIntake): Promise<Content> {
  if (!Array.isArray(content)) return textOf(content)
  const parts: Part[] = []
  for (const [j, part] of (content as ItemPart[]).entries()) {
    const where = `${field}[${j}]`
    if (part.type === 'input_image' || part.type === 'input_file') {
      if (part.type === 'input_image') {
        const detail = part.detail ? { detail: part.detail } : {}
        parts.push(await media.url(`${where}.image_url`, 'image', String(part.image_url ?? ''), detail))
      } else if (typeof part.file_data === 'string') {
        parts.push(await media.file(`${where}.file_data`, part.file_data, part.filename as string | undefined))
      } else {
        const title = typeof part.filename === 'string' ? { title: part.filename } : {}
        parts.push(await media.url(`${where}.file_url`, 'document', String(part.file_url ?? ''), title))
      }
    } else parts.push({ type: 'text', text: part.text ?? '' })
  }
  checkMediaCount(field, parts.filter(isMediaPart).length)
  return contentOf(parts)
}
