import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { countingEstimator, linearCount, MAX_RUN } from '.'
import { defaultEstimator, gptTokenizerEstimator } from './gpt-tokenizer'

const plain = { disallowedSpecial: new Set<string>() }

describe('linearCount', () => {
  it('passes normal text to the counter whole, so its count is unchanged', () => {
    const text = `${'The quick brown fox jumps over the lazy dog. '.repeat(200)}Ünïcödé 日本語 🙂 done.`
    const pieces: string[] = []
    const total = linearCount(text, (piece) => {
      pieces.push(piece)
      return countTokens(piece, plain)
    })
    expect(pieces).toEqual([text])
    expect(total).toBe(countTokens(text, plain))
  })

  it(`cuts runs of ${MAX_RUN}+ letters, punctuation or spaces into slices of at most ${MAX_RUN}`, () => {
    for (const run of ['a'.repeat(5000), '!'.repeat(5000), ' '.repeat(5000), 'é'.repeat(3000)]) {
      const text = `before ${run} after`
      const pieces: string[] = []
      linearCount(text, (piece) => {
        pieces.push(piece)
        return 1
      })
      expect(pieces.join('')).toBe(text)
      expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(MAX_RUN + 'before '.length)
      expect(pieces.filter((p) => p.length === MAX_RUN).length).toBeGreaterThan(5)
    }
  })

  it('never cuts a surrogate pair in half', () => {
    const text = '𝒜'.repeat(1000) // letters outside the BMP: two UTF-16 units each
    const pieces: string[] = []
    linearCount(text, (piece) => {
      pieces.push(piece)
      return 0
    })
    expect(pieces.join('')).toBe(text)
    for (const piece of pieces) expect(piece).not.toMatch(/[\uD800-\uDBFF]$|^[\uDC00-\uDFFF]/)
  })

  it('keeps the count of a long run close to the unsliced count', () => {
    const text = 'x'.repeat(2048)
    expect(linearCount(text, (piece) => countTokens(piece, plain))).toBe(countTokens(text, plain))
  })
})

describe('the default estimator', () => {
  it('is gpt-tokenizer with cl100k_base', () => {
    expect(defaultEstimator.name).toBe('gpt-tokenizer/cl100k_base')
    expect(defaultEstimator.count('Hello, world')).toBe(3) // 'Hello', ',', ' world' in cl100k_base
  })

  it('counts special-token text as plain text instead of throwing', () => {
    expect(() => countTokens('a <|endoftext|> b')).toThrow()
    expect(defaultEstimator.count('a <|endoftext|> b')).toBe(8) // '<|endoftext|>' as its pieces, not one special token
  })

  it('can be built for another encoding, with the same guards', () => {
    const o200k = gptTokenizerEstimator('o200k_base', o200kCount)
    expect(o200k.name).toBe('gpt-tokenizer/o200k_base')
    const text = 'Compaction keeps every prompt inside the context window. Ünïcödé 日本語'
    expect(o200k.count(text)).toBe(16) // cl100k_base counts 21
    expect(o200k.count('a <|endoftext|> b')).toBeGreaterThan(3)
  })
})

describe('countingEstimator', () => {
  it('counts calls and passes counts through', () => {
    const estimator = countingEstimator(defaultEstimator)
    expect(estimator.calls).toBe(0)
    expect(estimator.count('one two')).toBe(defaultEstimator.count('one two'))
    estimator.count('three')
    expect(estimator.calls).toBe(2)
  })
})
