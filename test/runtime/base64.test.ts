/**
 * The core's base64 in workerd, which has its own (`Uint8Array.fromBase64`, `toBase64`): the
 * runtime's answers are the ones the service gives, so they must be the core's own decoder's
 * and encoder's (src/core/media/base64.test.ts tests those in Node, which has neither).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeBase64, decodeBase64Checked, encodeBase64, encodeBase64InScript } from '../../src/core/media/base64'

/** Text near base64: its alphabet, padding, whitespace, base64url's letters, a non-Latin-1 one. */
const nearBase64 = fc
  .array(
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') },
      { weight: 2, arbitrary: fc.constant('=') },
      { weight: 1, arbitrary: fc.constantFrom(' ', '\n', '\r', '\t', '\f', '-', '_', 'é', '€', '.') },
    ),
    { maxLength: 40 },
  )
  .map((chars) => chars.join(''))

describe('base64 with the runtime’s own code', () => {
  it('is the runtime’s here (so these tests test it)', () => {
    expect(typeof (Uint8Array as unknown as { fromBase64?: unknown }).fromBase64).toBe('function')
    expect(typeof (Uint8Array.prototype as unknown as { toBase64?: unknown }).toBase64).toBe('function')
  })

  it('decodes what the checked decoder decodes, to the same bytes, and refuses what it refuses, with its problem', () => {
    fc.assert(
      fc.property(nearBase64, (text) => {
        expect(decodeBase64(text)).toEqual(decodeBase64Checked(text))
      }),
      { numRuns: 20_000 },
    )
  })

  it('decodes every encoding of any bytes, padded or not, as the checked decoder does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const padded = encodeBase64(bytes)
        expect(padded).toBe(encodeBase64InScript(bytes))
        for (const text of [padded, padded.replace(/=+$/, '')]) {
          expect(decodeBase64(text)).toEqual({ ok: true, bytes })
          expect(decodeBase64Checked(text)).toEqual({ ok: true, bytes })
        }
      }),
    )
  })

  it('takes a last group’s unused bits as the checked decoder does (ignored), and refuses whitespace as it does', () => {
    for (const text of ['QR==', 'QR', 'QUK=', 'QUK', 'Zm9v YmFy', 'Zm9v\nYmFy', 'Zm9v\r\n', ' Zm9v', 'Zm9v\t'])
      expect(decodeBase64(text)).toEqual(decodeBase64Checked(text))
    expect(decodeBase64('Zm9v YmFy')).toMatchObject({ ok: false, code: 'invalid_character', at: 4 })
  })

  it('encodes a megabyte as the script does, and decodes it back', () => {
    const bytes = new Uint8Array(1024 * 1024 + 1)
    for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536))
    const text = encodeBase64(bytes)
    expect(text).toBe(encodeBase64InScript(bytes))
    const decoded = decodeBase64(text)
    if (!decoded.ok) throw new Error(decoded.message)
    // Compared as text: a deep equality of a megabyte takes seconds.
    expect(encodeBase64InScript(decoded.bytes)).toBe(text)
  })
})
