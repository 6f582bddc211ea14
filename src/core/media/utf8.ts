/**
 * What a text/plain part's bytes must be: UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF, no cut sequence) with no NUL byte. Checked in one pass over the bytes,
 * without decoding them into a string.
 */

/** Where bytes stop being valid UTF-8 text, and why; null when they are text. */
export interface TextFault {
  at: number
  reason: 'nul' | 'invalid_utf8'
}

/**
 * The first fault of bytes meant as text/plain, or null when they are valid UTF-8 without NUL.
 *
 * @example
 * plainTextFault(new TextEncoder().encode('héllo')) // null
 * plainTextFault(Uint8Array.of(0x68, 0xc3)) // { at: 1, reason: 'invalid_utf8' }: a cut sequence
 * plainTextFault(Uint8Array.of(0x68, 0x00)) // { at: 1, reason: 'nul' }
 */
export function plainTextFault(bytes: Uint8Array): TextFault | null {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead === 0) return { at: i, reason: 'nul' }
    if (lead < 0x80) {
      i++
      continue
    }
    const length = sequenceLength(bytes, i)
    if (length === 0) return { at: i, reason: 'invalid_utf8' }
    i += length
  }
  return null
}

/**
 * The length of the multi-byte sequence starting at `i` (2–4), or 0 when it is not a valid one.
 * The second byte's range depends on the lead (RFC 3629 §4), which rules out overlong forms,
 * surrogates and code points above U+10FFFF.
 */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!
  let length: number
  let low = 0x80
  let high = 0xbf
  if (lead >= 0xc2 && lead <= 0xdf) length = 2
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3
    if (lead === 0xe0) low = 0xa0 // overlong below U+0800
    if (lead === 0xed) high = 0x9f // surrogates U+D800–DFFF
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4
    if (lead === 0xf0) low = 0x90 // overlong below U+10000
    if (lead === 0xf4) high = 0x8f // above U+10FFFF
  } else return 0 // a continuation byte, C0/C1 (overlong) or F5–FF
  if (i + length > bytes.length) return 0
  const second = bytes[i + 1]!
  if (second < low || second > high) return 0
  for (let k = 2; k < length; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return 0
  return length
}
