import { describe, expect, it } from 'vitest'
import { isHighSurrogate, utf8Length } from '.'

describe('utf8Length', () => {
  it('counts the bytes the UTF-8 encoder writes, lone surrogates as the replacement character', () => {
    for (const text of ['', 'plain', 'é', '€', '𝒜', 'a𝒜é€\u0000', '\ud835', 'x\udc9cy', '\ud835\ud835']) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).length)
    }
    expect(utf8Length('é𝒜')).toBe(6)
  })
})

describe('isHighSurrogate', () => {
  it('is true for the first half of a pair only', () => {
    expect(isHighSurrogate('𝒜'.charCodeAt(0))).toBe(true)
    expect(isHighSurrogate('𝒜'.charCodeAt(1))).toBe(false)
    expect(isHighSurrogate('a'.charCodeAt(0))).toBe(false)
  })
})
