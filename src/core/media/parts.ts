/**
 * A binary part as events hold it: a reference to bytes stored once by their SHA-256, never the
 * bytes themselves, and what was read from them (pixel size, page count).
 */

/** The image types a part may carry, checked against the bytes' signature. */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
/** The document types a part may carry. */
export const DOCUMENT_TYPES = ['application/pdf', 'text/plain'] as const

export type ImageType = (typeof IMAGE_TYPES)[number]
export type DocumentType = (typeof DOCUMENT_TYPES)[number]
export type SupportedMediaType = ImageType | DocumentType

/** Whether a media type is one of the supported image types (exact, lowercase). */
export const isImageType = (type: string): type is ImageType => (IMAGE_TYPES as readonly string[]).includes(type)
/** Whether a media type is one of the supported document types (exact, lowercase). */
export const isDocumentType = (type: string): type is DocumentType => (DOCUMENT_TYPES as readonly string[]).includes(type)

/**
 * A stored image or document, as an Event shows it.
 *
 * @example
 * const part: BinaryPart = {
 *   type: 'image', mediaType: 'image/png', blob: `sha256:${'ab'.repeat(32)}`, bytes: 186_000, width: 1280, height: 720,
 * }
 */
export interface BinaryPart {
  type: 'image' | 'document'
  mediaType: string
  /** `sha256:<64 lowercase hex>`: the stored bytes' name. */
  blob: string
  /** The decoded size in bytes. */
  bytes: number
  width?: number
  height?: number
  /** A PDF's page count, when it could be read from the file. */
  pages?: number
  title?: string
}

export type ImagePart = BinaryPart & { type: 'image' }
export type DocumentPart = BinaryPart & { type: 'document' }

export const isImagePart = (part: BinaryPart): part is ImagePart => part.type === 'image'
export const isDocumentPart = (part: BinaryPart): part is DocumentPart => part.type === 'document'

const BLOB_REF = /^sha256:[0-9a-f]{64}$/

/**
 * Whether a string names a blob: `sha256:` and 64 lowercase hex digits.
 *
 * @example
 * isBlobRef(`sha256:${'0'.repeat(64)}`) // true
 * isBlobRef('sha256:ABC') // false
 */
export const isBlobRef = (text: string): boolean => BLOB_REF.test(text)

/**
 * The blob reference of a SHA-256 given in hex.
 *
 * @example
 * blobRef('e3b0c442…') // 'sha256:e3b0c442…'
 */
export const blobRef = (sha256Hex: string): string => `sha256:${sha256Hex}`
