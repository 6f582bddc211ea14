import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { queryTerms } from '../../core'
import { anyExpression, ftsExpression, indexedText } from './fts-expression'

describe('a plain-text query', () => {
  it('is words, prefixes and phrases; operators and symbols only separate', () => {
    expect(ftsExpression('get_weather')).toBe('("get" OR "got" OR "gotten") AND "weather"')
    expect(ftsExpression('par* "in  Paris" x')).toBe('"par"* AND "in Paris" AND "x"')
    expect(ftsExpression('a OR b NOT c NEAR(d, e)')).toBe('"a" AND "OR" AND "b" AND "NOT" AND "c" AND "NEAR" AND "d" AND "e"')
    expect(ftsExpression('-x col:y ^z')).toBe('"x" AND "col" AND "y" AND "z"')
    expect(ftsExpression('"unclosed phrase here')).toBe('"unclosed phrase here"')
    expect(ftsExpression('"in*side" quotes')).toBe('"in side" AND "quotes"')
    expect(ftsExpression('café 東京 ١٢٣')).toBe('"café" AND "東京" AND "١٢٣"')
    expect(ftsExpression('rocket🚀ship')).toBe('"rocket" AND "ship"')
  })

  it('finds an irregular verb by any of its forms, and any word of a query with `anyExpression`', () => {
    expect(ftsExpression('Went home')).toBe('("went" OR "go" OR "gone" OR "goes") AND "home"')
    expect(ftsExpression('went* "we went"')).toBe('"went"* AND "we went"')
    expect(anyExpression(queryTerms('bought "red car" tyre*'))).toBe('("bought" OR "buy") OR "red car" OR "tyre"*')
  })

  it('with no word is null (the API answers 400)', () => {
    for (const q of ['', '   ', '***', '"" ""', '-:^()', '🚀🚀', '_']) expect(ftsExpression(q), q).toBeNull()
  })

  it('for any input gives only quoted letters and digits, optionally a prefix star', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (q) => {
        const expression = ftsExpression(q)
        if (expression === null) expect(queryTerms(q)).toEqual([])
        else expect(expression).toMatch(/^(("[\p{L}\p{N}\p{M} ]+"\*?|\(("[a-z]+"( OR )?)+\))( AND )?)+$/u)
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
