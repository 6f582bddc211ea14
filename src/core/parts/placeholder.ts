import { mediaPlaceholder } from '../media/placeholder'
import type { MediaPart } from '.'

/**
 * What stands for an image or a document where its bytes do not go (see `mediaPlaceholder`); one
 * known by its URL is named by it.
 *
 * @example
 * partPlaceholder({ type: 'image', url: 'https://example.com/a.png' }) // '[image: https://example.com/a.png]'
 */
export const partPlaceholder = (part: MediaPart): string =>
  'url' in part ? `[${part.type}: ${part.url}]` : mediaPlaceholder(part)
