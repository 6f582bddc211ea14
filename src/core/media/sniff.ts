import { DOCUMENT_TYPES, IMAGE_TYPES, isDocumentType, isImageType } from './parts'
import { plainTextFault } from './utf8'

/**
 * What the bytes of a part are, by their signature, and whether that is what the part declares.
 * The declared type alone is not trusted: a PNG stored as image/jpeg would be sent upstream
 * mislabelled on every later request, and the provider would refuse the whole history.
 */

/** A type recognised by its leading bytes. text/plain has no signature and is never sniffed. */
export type SniffedType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'application/pdf'

/** How a message names each sniffed type. */
const NAMES: Record<SniffedType, string> = {
  'image/png': 'a PNG image',
  'image/jpeg': 'a JPEG image',
  'image/gif': 'a GIF image',
  'image/webp': 'a WebP image',
  'application/pdf': 'a PDF document',
}

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte)

const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0))

/** PNG spec §5.2. */
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
/** SOI, then the 0xFF of the next marker (JFIF, EXIF and raw JPEGs alike). */
const JPEG = [0xff, 0xd8, 0xff]
const GIF87 = ascii('GIF87a')
const GIF89 = ascii('GIF89a')
const RIFF = ascii('RIFF')
const WEBP = ascii('WEBP')
/** At the very start, as WHATWG's sniffing rule reads it (readers tolerating junk before it are not followed). */
const PDF = ascii('%PDF-')

/**
 * The type of bytes by their signature, or null when they start like none of the supported
 * binary types.
 *
 * @example
 * sniffMediaType(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0)) // 'image/jpeg'
 * sniffMediaType(new TextEncoder().encode('hello')) // null
 */
export function sniffMediaType(bytes: Uint8Array): SniffedType | null {
  if (startsWith(bytes, PNG)) return 'image/png'
  if (startsWith(bytes, JPEG)) return 'image/jpeg'
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'image/gif'
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp'
  if (startsWith(bytes, PDF)) return 'application/pdf'
  return null
}

/**
 * A declared media type as compared: lowercased, parameters dropped (`text/plain; charset=utf-8`
 * is text/plain; UTF-8 is the only charset a text part may be in anyway).
 *
 * @example
 * normalizeMediaType(' Text/Plain; charset=UTF-8') // 'text/plain'
 */
export const normalizeMediaType = (declared: string): string => declared.split(';')[0]!.trim().toLowerCase()

const SHORT_IMAGE_NAMES = IMAGE_TYPES.map((type) => type.slice('image/'.length)).join(', ')

/**
 * What is wrong with a part's declared media type and its bytes, in words for a 400, or null when
 * they agree. With `kind`, the type must also be one that kind of part may carry.
 *
 * @example
 * mediaTypeProblem('image/png', jpegBytes) // 'declared image/png but the bytes are a JPEG image'
 * mediaTypeProblem('image/bmp', bytes) // 'image/bmp is not one of png, jpeg, gif, webp'
 * mediaTypeProblem('application/pdf', pdfBytes, 'image') // 'an image must be one of png, jpeg, gif, webp, not application/pdf'
 */
export function mediaTypeProblem(declared: string, bytes: Uint8Array, kind?: 'image' | 'document'): string | null {
  const type = normalizeMediaType(declared)
  const unsupported = unsupportedProblem(type, kind)
  if (unsupported) return unsupported
  const sniffed = sniffMediaType(bytes)
  if (type === 'text/plain') return plainTextProblem(bytes, sniffed)
  if (sniffed === type) return null
  if (sniffed) return `declared ${type} but the bytes are ${NAMES[sniffed]}`
  if (bytes.length === 0) return `declared ${type} but there are no bytes`
  return `declared ${type} but the bytes are not ${NAMES[type as SniffedType]} (its signature is missing)`
}

/**
 * Whether a declared media type is supported and matches the bytes (see {@link mediaTypeProblem}).
 *
 * @example
 * checkMediaType('image/png', pngBytes) // true
 */
export const checkMediaType = (declared: string, bytes: Uint8Array, kind?: 'image' | 'document'): boolean =>
  mediaTypeProblem(declared, bytes, kind) === null

/** Why a type cannot be declared (for this kind of part), or null. */
function unsupportedProblem(type: string, kind: 'image' | 'document' | undefined): string | null {
  if (type === '') return 'the media type is empty'
  const image = isImageType(type)
  const document = isDocumentType(type)
  if (image && kind !== 'document') return null
  if (document && kind !== 'image') return null
  if (kind === 'document') return `a document must be ${DOCUMENT_TYPES.join(' or ')}, not ${type}`
  if (type.startsWith('image/')) return `${type} is not one of ${SHORT_IMAGE_NAMES}`
  if (kind === 'image') return `an image must be one of ${SHORT_IMAGE_NAMES}, not ${type}`
  return `${type} is not supported: images are ${SHORT_IMAGE_NAMES}; documents ${DOCUMENT_TYPES.join(', ')}`
}

/** Why bytes declared text/plain are not text, or null. */
function plainTextProblem(bytes: Uint8Array, sniffed: SniffedType | null): string | null {
  // A known binary signature is a mislabelled file, even when its first bytes happen to be ASCII (%PDF-).
  if (sniffed) return `declared text/plain but the bytes are ${NAMES[sniffed]}`
  const fault = plainTextFault(bytes)
  if (!fault) return null
  if (fault.reason === 'nul') return `declared text/plain but the bytes hold a NUL byte at ${fault.at}`
  return `declared text/plain but the bytes are not valid UTF-8 (at byte ${fault.at})`
}
