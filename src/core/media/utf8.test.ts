import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { plainTextFault } from './utf8'

/** The platform's strict decoder as the oracle for "is valid UTF-8". */
const platformAccepts = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    return true
  } catch {
    return false
  }
}

describe('plainTextFault', () => {
  it('accepts UTF-8 text in every sequence length, a BOM included', () => {
    expect(plainTextFault(new TextEncoder().encode('a é € 𝒜 — \uFEFF\n'))).toBeNull()
    expect(plainTextFault(Uint8Array.of(0xef, 0xbb, 0xbf, 0x68))).toBeNull()
    expect(plainTextFault(new Uint8Array())).toBeNull()
  })

  it('finds a NUL byte', () => {
    expect(plainTextFault(Uint8Array.of(0x61, 0x62, 0x00, 0x63))).toEqual({ at: 2, reason: 'nul' })
  })

  it('refuses overlong forms, surrogates, code points above U+10FFFF, stray continuations and cut sequences', () => {
    const cases: [number[], number][] = [
      [[0xc0, 0xaf], 0], // overlong '/'
      [[0x61, 0xe0, 0x80, 0xaf], 1], // overlong 3-byte
      [[0xf0, 0x80, 0x80, 0xaf], 0], // overlong 4-byte
      [[0xed, 0xa0, 0x80], 0], // U+D800
      [[0xf4, 0x90, 0x80, 0x80], 0], // U+110000
      [[0xf5, 0x80, 0x80, 0x80], 0],
      [[0x61, 0x80], 1], // a continuation byte alone
      [[0x61, 0x62, 0xe2, 0x82], 2], // '€' cut
      [[0xe2, 0x28, 0xa1], 0], // a bad continuation
    ]
    for (const [bytes, at] of cases) expect(plainTextFault(Uint8Array.from(bytes))).toEqual({ at, reason: 'invalid_utf8' })
  })

  it('agrees with the platform decoder on any bytes (NUL aside)', () => {
    const nearText = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => new TextEncoder().encode(s)),
      fc
        .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.nat(), fc.integer({ min: 0x80, max: 0xff }))
        .map(([s, at, byte]) => {
          const bytes = new TextEncoder().encode(s)
          bytes[at % bytes.length] = byte
          return bytes
        }),
    )
    fc.assert(
      fc.property(nearText, (bytes) => {
        const fault = plainTextFault(bytes)
        const valid = platformAccepts(bytes)
        if (!bytes.includes(0)) expect(fault === null).toBe(valid)
        else expect(fault).not.toBeNull()
      }),
      { numRuns: 2000 },
    )
  })
})
