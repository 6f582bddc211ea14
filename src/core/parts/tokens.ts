import { documentTokens, imageTokens } from '../media/tokens'
import type { MediaPart } from '.'

/** Bytes a token of plain text takes, as the estimate of a text/plain document whose text it does not hold. */
const TEXT_BYTES_PER_TOKEN = 4

/**
 * An image's or document's tokens, by the providers' published rules (see `media/tokens`): an
 * image by its pixel size — OpenAI's tile rule when the client gave a `detail` (an OpenAI client's
 * image), else Anthropic's `w × h / 750` after its resize; one known only by URL at the most its
 * rule can cost — a PDF by its pages, a text/plain document by its size at 4 bytes a token.
 * Calibration scales these as it scales text.
 *
 * @example
 * partTokens({ type: 'image', mediaType: 'image/png', blob, bytes: 1, width: 1092, height: 1092 }) // 1590
 */
export function partTokens(part: MediaPart): number {
  if (part.type === 'image') {
    const size =
      'url' in part || part.width === undefined || part.height === undefined ? null : { width: part.width, height: part.height }
    return part.detail ? imageTokens(size, 'openai', part.detail) : imageTokens(size, 'anthropic')
  }
  if ('url' in part) return documentTokens({})
  if (part.mediaType === 'text/plain') return Math.ceil(part.bytes / TEXT_BYTES_PER_TOKEN)
  return documentTokens(part.pages !== undefined ? { pages: part.pages } : {})
}
