import { queryTerms } from '../../core'

/**
 * A plain-text query (see the core's `queryTerms`) as an FTS5 expression: each term a quoted
 * string (a prefix with `*` after it), all of them required. Only letters and digits ever reach
 * the quotes, so no input is a syntax error; null when the query has no word.
 *
 * @example
 * ftsExpression('NEAR(x -y') // '"NEAR" "x" "y"'
 */
export function ftsExpression(q: string): string | null {
  const terms = queryTerms(q)
  if (terms.length === 0) return null
  return terms
    .map((term) => (term.kind === 'phrase' ? `"${term.words.join(' ')}"` : `"${term.word}"${term.prefix ? '*' : ''}`))
    .join(' ')
}

/** A character outside the Basic Multilingual Plane that is not a letter, digit or mark: an emoji, a symbol. */
const ASTRAL_SYMBOL = /(?![\p{L}\p{N}\p{M}])[\u{10000}-\u{10FFFF}]/gu

/**
 * An event's text as the index takes it. FTS5's unicode61 tokenizer knows the categories of the
 * Basic Multilingual Plane only, and takes any character beyond it for a letter: an emoji between
 * two words would join them into one (`avocado🥑toast`). Such symbols become spaces here, as a query
 * has them (see the core's `queryTerms`); a snippet then shows a space in their place.
 *
 * @example
 * indexedText('avocado🥑toast') // 'avocado toast'
 */
export const indexedText = (text: string): string => text.replace(ASTRAL_SYMBOL, ' ')
