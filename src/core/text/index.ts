/** Text measures, each with one home: the UTF-8 size limits count, and the cut no part may split. */

/** Whether a UTF-16 code unit is the first half of a surrogate pair (a cut must not follow it). */
export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff

/**
 * The UTF-8 byte length of a string, without allocating an encoded copy. A lone surrogate counts
 * 3 bytes, as the encoder's replacement character would.
 *
 * @example
 * utf8Length('é𝒜') // 6: 2 + 4
 */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (isHighSurrogate(code) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}
