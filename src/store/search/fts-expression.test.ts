import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { queryTerms } from '../../core'
import { ftsExpression, indexedText } from './fts-expression'

describe('a plain-text query', () => {
  it('is words, prefixes and phrases; operators and symbols only separate', () => {
    expect(ftsExpression('get_weather')).toBe('"get" "weather"')
    expect(ftsExpression('par* "in  Paris" x')).toBe('"par"* "in Paris" "x"')
    expect(ftsExpression('a OR b NOT c NEAR(d, e)')).toBe('"a" "OR" "b" "NOT" "c" "NEAR" "d" "e"')
    expect(ftsExpression('-x col:y ^z')).toBe('"x" "col" "y" "z"')
    expect(ftsExpression('"unclosed phrase here')).toBe('"unclosed phrase here"')
    expect(ftsExpression('"in*side" quotes')).toBe('"in side" "quotes"')
    expect(ftsExpression('café 東京 ١٢٣')).toBe('"café" "東京" "١٢٣"')
    expect(ftsExpression('rocket🚀ship')).toBe('"rocket" "ship"')
  })

  it('with no word is null (the API answers 400)', () => {
    for (const q of ['', '   ', '***', '"" ""', '-:^()', '🚀🚀', '_']) expect(ftsExpression(q), q).toBeNull()
  })

  it('for any input gives only quoted letters and digits, optionally a prefix star', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (q) => {
        const expression = ftsExpression(q)
        if (expression === null) expect(queryTerms(q)).toEqual([])
        else expect(expression).toMatch(/^("[\p{L}\p{N}\p{M} ]+"\*? ?)+$/u)
      }),
    )
  })
})

describe('the text the index takes', () => {
  it('has symbols beyond the Basic Multilingual Plane as separators, letters beyond it as letters', () => {
    expect(indexedText('avocado🥑toast')).toBe('avocado toast')
    expect(indexedText('ship 🚀🚀 now')).toBe('ship    now')
    expect(indexedText('𝒜lgebra 𠀀字 café')).toBe('𝒜lgebra 𠀀字 café')
    // Every word a query can name stays as the query names it.
    expect(queryTerms(indexedText('rocket🚀ship'))).toEqual(queryTerms('rocket🚀ship'))
  })
})
