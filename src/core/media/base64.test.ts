import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeBase64, encodeBase64 } from './base64'

/** The platform's own encoder (btoa over a binary string) as the independent oracle. */
const platformBase64 = (bytes: Uint8Array) => {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

const bytesOf = (text: string) => new TextEncoder().encode(text)

describe('decodeBase64', () => {
  it('decodes RFC 4648 test vectors, padded and unpadded', () => {
    // RFC 4648 §10: BASE64("foobar") = "Zm9vYmFy" and its prefixes.
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ]
    for (const [plain, encoded] of vectors) {
      expect(decodeBase64(encoded)).toEqual({ ok: true, bytes: bytesOf(plain) })
      expect(decodeBase64(encoded.replace(/=+$/, ''))).toEqual({ ok: true, bytes: bytesOf(plain) })
    }
  })

  it('decodes every byte value', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i)
    const result = decodeBase64(platformBase64(all))
    expect(result).toEqual({ ok: true, bytes: all })
  })

  it('names an invalid character and where it is', () => {
    expect(decodeBase64('Zm9v YmFy')).toMatchObject({
      ok: false,
      code: 'invalid_character',
      at: 4,
      message: 'invalid base64 at character 4: a space is not a base64 character',
    })
    expect(decodeBase64('Zm9v\nYmFy')).toMatchObject({
      ok: false,
      code: 'invalid_character',
      at: 4,
      message: 'invalid base64 at character 4: a line break is not a base64 character',
    })
    expect(decodeBase64('Zm9v-mFy')).toMatchObject({
      ok: false,
      code: 'invalid_character',
      message: "invalid base64 at character 4: '-' (base64url; standard base64 uses + and /) is not a base64 character",
    })
    expect(decodeBase64('Zm9vé')).toMatchObject({ ok: false, code: 'invalid_character', at: 4 })
    expect(decodeBase64('Zm9v\u0000')).toMatchObject({
      code: 'invalid_character',
      message: 'invalid base64 at character 4: the control character U+0000 is not a base64 character',
    })
    expect(decodeBase64('Zm9v😀')).toMatchObject({ code: 'invalid_character', at: 4 })
  })

  it('says when padding is misplaced or wrong', () => {
    expect(decodeBase64('Zg=v')).toMatchObject({
      ok: false,
      code: 'bad_padding',
      at: 2,
      message: "invalid base64 at character 2: '=' before the end of the data",
    })
    expect(decodeBase64('Zm8==')).toMatchObject({
      ok: false,
      code: 'bad_padding',
      at: 3,
      message: "invalid base64 at character 3: 2 '=' after 3 data characters (padding only fills the last group up to 4)",
    })
    expect(decodeBase64('Zg===')).toMatchObject({ ok: false, code: 'bad_padding' })
    expect(decodeBase64('Zm9v=')).toMatchObject({ ok: false, code: 'bad_padding' })
    expect(decodeBase64('====')).toMatchObject({ ok: false, code: 'bad_padding', at: 0 })
  })

  it('says when the length cannot be a whole number of bytes', () => {
    expect(decodeBase64('Zm9vY')).toMatchObject({
      ok: false,
      code: 'wrong_length',
      at: 5,
      message:
        'invalid base64 at character 5: 5 data characters leave one over (the last group of a whole number of bytes has 2 or 3)',
    })
    expect(decodeBase64('Z')).toMatchObject({ ok: false, code: 'wrong_length' })
    expect(decodeBase64('Z===')).toMatchObject({ ok: false, code: 'wrong_length' })
  })

  it('ignores the unused low bits of the last group, as atob does', () => {
    // 'Zh' carries 12 bits; the byte is 'f' (0x66) and 4 bits are left over (here nonzero).
    expect(atob('Zh==')).toBe('f')
    expect(decodeBase64('Zh==')).toEqual({ ok: true, bytes: bytesOf('f') })
  })

  it('round-trips any bytes through the platform encoder', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.boolean(), (bytes, unpadded) => {
        const text = platformBase64(bytes)
        const result = decodeBase64(unpadded ? text.replace(/=+$/, '') : text)
        expect(result).toEqual({ ok: true, bytes })
      }),
    )
  })

  it('accepts exactly what atob accepts among strict (whitespace-free, padded-or-not) texts', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n'
    const text = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 24 })
    fc.assert(
      fc.property(text, (candidate) => {
        const result = decodeBase64(candidate)
        // atob also skips whitespace and accepts some misplaced padding: only compare where it is strict.
        if (/\s/.test(candidate)) {
          expect(result.ok).toBe(false)
          return
        }
        let platform: string | null
        try {
          platform = atob(candidate)
        } catch {
          platform = null
        }
        if (platform === null) expect(result.ok).toBe(false)
        else if (result.ok) expect(String.fromCharCode(...result.bytes)).toBe(platform)
      }),
    )
  })
})

describe('encodeBase64', () => {
  it('encodes RFC 4648 test vectors with padding', () => {
    expect(encodeBase64(bytesOf(''))).toBe('')
    expect(encodeBase64(bytesOf('f'))).toBe('Zg==')
    expect(encodeBase64(bytesOf('fo'))).toBe('Zm8=')
    expect(encodeBase64(bytesOf('foobar'))).toBe('Zm9vYmFy')
  })

  it('matches the platform encoder on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1000 }), (bytes) => {
        expect(encodeBase64(bytes)).toBe(platformBase64(bytes))
      }),
    )
  })

  it('encodes 20 MiB quickly and exactly across chunk boundaries', () => {
    const bytes = new Uint8Array(20 * 1024 * 1024)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24
    const started = performance.now()
    const text = encodeBase64(bytes)
    const elapsed = performance.now() - started
    expect(text.length).toBe(Math.ceil(bytes.length / 3) * 4)
    // Spot-check windows against the platform encoder, including around each 32 K-character chunk edge.
    for (const start of [0, 24_573, 24_576, 3 * 1_000_000, bytes.length - 30]) {
      const window = bytes.subarray(start - (start % 3), start - (start % 3) + 30)
      const at = ((start - (start % 3)) / 3) * 4
      expect(text.slice(at, at + 40)).toBe(platformBase64(window))
    }
    expect(elapsed).toBeLessThan(2000)
    const decoded = decodeBase64(text)
    expect(decoded.ok && decoded.bytes.length).toBe(bytes.length)
    expect(decoded.ok && decoded.bytes[12_345_678]).toBe(bytes[12_345_678])
  })
})
