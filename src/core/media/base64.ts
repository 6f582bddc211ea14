/**
 * Standard base64 (RFC 4648 §4), strict: the alphabet `A–Z a–z 0–9 + /`, padding optional but
 * correct when present, nothing else — no whitespace, no line breaks, no base64url. A decoder that
 * skips what it does not know would store different bytes than the client meant, so every
 * deviation is a problem that says which one and where.
 */

/** Why a text is not base64. */
export type Base64ProblemCode = 'invalid_character' | 'bad_padding' | 'wrong_length'

/** Why a text is not base64: `detail` says what, at character `at`; `message` says both. */
export interface Base64Problem {
  ok: false
  code: Base64ProblemCode
  at: number
  detail: string
  message: string
}

export type Base64Result = { ok: true; bytes: Uint8Array } | Base64Problem

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const PAD = 0x3d // '='

/** A character code's 6-bit value, or -1 when it is not in the alphabet. */
const VALUES = (() => {
  const values = new Int8Array(256).fill(-1)
  for (let i = 0; i < ALPHABET.length; i++) values[ALPHABET.charCodeAt(i)] = i
  return values
})()
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0))

const problem = (code: Base64ProblemCode, at: number, detail: string): Base64Problem => ({
  ok: false,
  code,
  at,
  detail,
  message: `invalid base64 at character ${at}: ${detail}`,
})

/** A character as a message names it: visible ones quoted, the invisible by name or code. */
function describeCharacter(code: number): string {
  if (code === 0x0a || code === 0x0d) return 'a line break'
  if (code === 0x20) return 'a space'
  if (code === 0x09) return 'a tab'
  if (code < 0x20 || code === 0x7f) return `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  const hint = code === 0x2d || code === 0x5f ? ' (base64url; standard base64 uses + and /)' : ''
  return `'${String.fromCharCode(code)}'${hint}`
}

/** How many `=` end the text (any number: more than two is reported, not trimmed). */
function trailingPads(text: string): number {
  let pads = 0
  while (pads < text.length && text.charCodeAt(text.length - 1 - pads) === PAD) pads++
  return pads
}

/**
 * Decodes standard base64, padded or not.
 *
 * @example
 * decodeBase64('aGk=') // { ok: true, bytes: Uint8Array [104, 105] }
 * decodeBase64('aGk')  // the same: padding is optional
 * decodeBase64('aG k') // { ok: false, code: 'invalid_character', at: 2, message: 'invalid base64 at character 2: a space is not a base64 character', … }
 */
export function decodeBase64(text: string): Base64Result {
  const pads = trailingPads(text)
  const length = text.length - pads // the data characters
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code === PAD) return problem('bad_padding', i, "'=' before the end of the data")
    if (code > 0xff || VALUES[code]! < 0) {
      return problem('invalid_character', i, `${describeCharacter(code)} is not a base64 character`)
    }
  }
  if (length % 4 === 1) {
    return problem(
      'wrong_length',
      length,
      `${length} data characters leave one over (the last group of a whole number of bytes has 2 or 3)`,
    )
  }
  if (pads > 0 && (pads > 2 || (length + pads) % 4 !== 0)) {
    return problem(
      'bad_padding',
      length,
      `${pads} '=' after ${length} data characters (padding only fills the last group up to 4)`,
    )
  }
  return { ok: true, bytes: decodeValid(text, length) }
}

/** Decodes `length` characters already checked to be in the alphabet. */
function decodeValid(text: string, length: number): Uint8Array {
  const bytes = new Uint8Array(Math.floor((length * 3) / 4))
  const whole = length - (length % 4)
  let out = 0
  for (let i = 0; i < whole; i += 4) {
    const n = (sextet(text, i) << 18) | (sextet(text, i + 1) << 12) | (sextet(text, i + 2) << 6) | sextet(text, i + 3)
    bytes[out++] = n >> 16
    bytes[out++] = (n >> 8) & 0xff
    bytes[out++] = n & 0xff
  }
  // A last group of 2 or 3 characters: 1 or 2 bytes. Its unused low bits are ignored, as atob and
  // every common decoder do (standard encoders always write them as zero).
  const rest = length - whole
  if (rest >= 2) {
    const n = (sextet(text, whole) << 18) | (sextet(text, whole + 1) << 12) | (rest === 3 ? sextet(text, whole + 2) << 6 : 0)
    bytes[out++] = n >> 16
    if (rest === 3) bytes[out++] = (n >> 8) & 0xff
  }
  return bytes
}

const sextet = (text: string, i: number): number => VALUES[text.charCodeAt(i)]!

/** Characters converted to a string at once: well under engines' argument limits. */
const CHUNK_CHARS = 0x8000

/**
 * Encodes bytes as padded standard base64, linear in their size: characters are written into a
 * byte buffer and turned into strings a chunk at a time, with no growing string concatenation.
 *
 * @example
 * encodeBase64(new Uint8Array([104, 105])) // 'aGk='
 */
export function encodeBase64(bytes: Uint8Array): string {
  const chars = new Uint8Array(Math.ceil(bytes.length / 3) * 4)
  const whole = bytes.length - (bytes.length % 3)
  let out = 0
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    chars[out++] = CODES[n >> 18]!
    chars[out++] = CODES[(n >> 12) & 63]!
    chars[out++] = CODES[(n >> 6) & 63]!
    chars[out++] = CODES[n & 63]!
  }
  const rest = bytes.length - whole
  if (rest > 0) {
    const n = (bytes[whole]! << 16) | (rest === 2 ? bytes[whole + 1]! << 8 : 0)
    chars[out++] = CODES[n >> 18]!
    chars[out++] = CODES[(n >> 12) & 63]!
    chars[out++] = rest === 2 ? CODES[(n >> 6) & 63]! : PAD
    chars[out++] = PAD
  }
  return asciiString(chars)
}

/** An ASCII byte buffer as a string, converted a chunk at a time and joined once. */
function asciiString(chars: Uint8Array): string {
  const pieces: string[] = []
  for (let i = 0; i < chars.length; i += CHUNK_CHARS) {
    pieces.push(String.fromCharCode.apply(null, chars.subarray(i, i + CHUNK_CHARS) as unknown as number[]))
  }
  return pieces.join('')
}
