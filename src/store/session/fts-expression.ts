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
