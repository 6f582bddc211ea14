import { folded, type QueryTerm, queryTerms, verbFormsOf } from '../../core'

/**
 * One term as an FTS5 expression: a word as a quoted string (an irregular verb's forms as an
 * `OR` of them: `went` finds "go"), a prefix with `*` after it, a phrase its words quoted
 * together. Only letters and digits ever reach the quotes.
 *
 * @example
 * termExpression({ kind: 'word', word: 'went', prefix: false }) // '("went" OR "go" OR "gone" OR "goes")'
 */
export function termExpression(term: QueryTerm): string {
  if (term.kind === 'phrase') return `"${term.words.join(' ')}"`
  if (term.prefix) return `"${term.word}"*`
  const forms = verbFormsOf(folded(term.word))
  return forms.length === 1 ? `"${term.word}"` : `(${forms.map((form) => `"${form}"`).join(' OR ')})`
}

/**
 * A plain-text query (see the core's `queryTerms`) as an FTS5 expression: each term (see
 * {@link termExpression}) required. No input is a syntax error; null when the query has no word.
 *
 * @example
 * ftsExpression('NEAR(x -y') // '"NEAR" AND "x" AND "y"'
 */
export function ftsExpression(q: string): string | null {
  const terms = queryTerms(q)
  // `AND` written out: FTS5 joins adjacent strings by itself, but not a parenthesized `OR` and a string.
  return terms.length === 0 ? null : terms.map(termExpression).join(' AND ')
}

/**
 * Terms as an FTS5 expression any one of which matches (a snippet of a hit that holds only some).
 *
 * @example
 * anyExpression(queryTerms('deploy friday')) // '"deploy" OR "friday"'
 */
export const anyExpression = (terms: readonly QueryTerm[]): string => terms.map(termExpression).join(' OR ')

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
