import { type Base64ProblemCode, decodeBase64, encodeBase64 } from './base64'

/**
 * `data:` URLs (RFC 2397) as parts carry them: `data:<type>[;param=value]*;base64,<data>`.
 * Only base64 ones: a percent-encoded data URL is text a client meant as something else, and
 * storing its bytes by guess would differ from what it sent.
 */

export type DataUrlProblemCode = 'not_data_url' | 'not_base64' | 'no_media_type' | Base64ProblemCode

export type DataUrlResult =
  | { ok: true; mediaType: string; data: Uint8Array }
  | { ok: false; code: DataUrlProblemCode; message: string }

/** `type/subtype` of RFC 2045 token characters. */
const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/

const problem = (code: DataUrlProblemCode, message: string): DataUrlResult => ({ ok: false, code, message })

/**
 * Reads a base64 data URL: its media type (lowercased, parameters such as `charset` dropped) and
 * its decoded bytes. The scheme and `;base64` are matched case-insensitively, as RFC 2397 allows.
 *
 * @example
 * parseDataUrl('data:image/png;base64,iVBORw0KGgo=') // { ok: true, mediaType: 'image/png', data: Uint8Array [137, 80, …] }
 * parseDataUrl('data:text/plain,hello') // { ok: false, code: 'not_base64', message: 'a data: URL must be base64 (…;base64,…)' }
 */
export function parseDataUrl(url: string): DataUrlResult {
  if (url.slice(0, 5).toLowerCase() !== 'data:') return problem('not_data_url', 'not a data: URL')
  const comma = url.indexOf(',')
  if (comma < 0) return problem('not_data_url', 'a data: URL needs a comma before its data')
  const header = url.slice(5, comma).split(';')
  if (header.at(-1)?.trim().toLowerCase() !== 'base64') return problem('not_base64', 'a data: URL must be base64 (…;base64,…)')
  const mediaType = (header[0] ?? '').trim().toLowerCase()
  if (mediaType === '') return problem('no_media_type', 'a data: URL must name its media type (data:<type>;base64,…)')
  if (!MEDIA_TYPE.test(mediaType))
    return problem('no_media_type', `a data: URL's media type must be type/subtype, not ${JSON.stringify(mediaType)}`)
  const decoded = decodeBase64(url.slice(comma + 1))
  if (!decoded.ok) {
    // Positions count from the start of the URL, where the client will look.
    return problem(decoded.code, `invalid base64 in the data: URL at character ${decoded.at + comma + 1}: ${decoded.detail}`)
  }
  return { ok: true, mediaType, data: decoded.bytes }
}

/**
 * A base64 data URL of bytes: what OpenAI's `image_url` and `file_data` take.
 *
 * @example
 * toDataUrl('text/plain', new TextEncoder().encode('hi')) // 'data:text/plain;base64,aGk='
 */
export const toDataUrl = (mediaType: string, bytes: Uint8Array): string => `data:${mediaType};base64,${encodeBase64(bytes)}`
