import type { BinaryPart } from './parts'

/**
 * The text a binary part stands as where its bytes cannot go: for a summarizer, in Markdown
 * export, to a model without vision. It names what the part is, enough to be told apart and
 * found again by its hash, and is the same for the same part every time.
 */

/** Titles longer than this are cut, with an ellipsis, in a placeholder. */
export const PLACEHOLDER_TITLE_LIMIT = 200

/**
 * A size as people read it, in binary units: below 1 KB in bytes (`512 B`); up to 1023 KB in
 * whole kilobytes (`bytes / 1024`, rounded: `182 KB`); from there in megabytes with one decimal
 * (`bytes / 1024²`: `1.4 MB`).
 *
 * @example
 * formatBytes(186_000) // '182 KB'
 * formatBytes(1_500_000) // '1.4 MB'
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const kb = Math.round(bytes / 1024)
  if (kb < 1024) return `${kb} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/**
 * A part as a one-line placeholder: its kind, then for a document its title (quoted, when
 * given), its media type, an image's pixel size or a PDF's pages (when known), its size, and the
 * first 8 hex digits of its SHA-256.
 *
 * @example
 * mediaPlaceholder({ type: 'image', mediaType: 'image/png', blob: 'sha256:1a2b3c4d…', bytes: 186_000, width: 1280, height: 720 })
 * // '[image: image/png, 1280×720, 182 KB, sha256:1a2b3c4d]'
 * mediaPlaceholder({ type: 'document', mediaType: 'application/pdf', blob: 'sha256:9f8e…', bytes: 1_500_000, pages: 12, title: 'Q3 report' })
 * // '[document: "Q3 report", application/pdf, 12 pages, 1.4 MB, sha256:9f8e7d6c]'
 */
export function mediaPlaceholder(part: BinaryPart): string {
  const fields: string[] = []
  if (part.type === 'document' && part.title) fields.push(quotedTitle(part.title))
  fields.push(part.mediaType)
  if (part.type === 'image' && part.width && part.height) fields.push(`${part.width}×${part.height}`)
  if (part.type === 'document' && part.pages) fields.push(part.pages === 1 ? '1 page' : `${part.pages} pages`)
  fields.push(formatBytes(part.bytes), shortHash(part.blob))
  return `[${part.type}: ${fields.join(', ')}]`
}

/** `sha256:` and the first 8 hex digits of the blob's name. */
const shortHash = (blob: string) => `sha256:${blob.replace(/^sha256:/, '').slice(0, 8)}`

/** A title as JSON quotes it (so quotes and line breaks inside cannot end the field), cut when long. */
function quotedTitle(title: string): string {
  const characters = Array.from(title) // by code point: a cut never splits a surrogate pair
  const kept = characters.length > PLACEHOLDER_TITLE_LIMIT ? `${characters.slice(0, PLACEHOLDER_TITLE_LIMIT).join('')}…` : title
  return JSON.stringify(kept)
}
