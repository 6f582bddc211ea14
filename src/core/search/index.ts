import type { Message } from '../events'

/**
 * Search over a session's events, as plain text: what an event is found by, and how a query a
 * person typed becomes a full-text expression that can never be a syntax error.
 */

/** The text an event is found by: its content, its tool calls' names and arguments, its tool results' names and data. */
export function searchTextOf(message: Message): string {
  const parts: string[] = []
  if (message.content) parts.push(message.content)
  for (const call of message.toolCalls ?? []) parts.push(call.name, call.arguments)
  for (const response of message.toolResponses ?? []) parts.push(response.name, response.data)
  return parts.join('\n')
}

/** A word of a query or a text: a run of letters, digits (and the marks on them). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** One part of a parsed query: a word (maybe a prefix), or a phrase of words in order. */
export type QueryTerm = { kind: 'word'; word: string; prefix: boolean } | { kind: 'phrase'; words: string[] }

/**
 * A plain-text query's terms: words (a `*` right after one makes it a prefix), and `"phrases"`
 * (an unclosed quote runs to the end; inside quotes `*` only separates). Everything that is not
 * a letter or digit separates words — operators mean nothing.
 *
 * @example
 * queryTerms('get_weather "in Paris" par*') // get, weather, phrase [in, Paris], par (prefix)
 */
export function queryTerms(q: string): QueryTerm[] {
  const terms: QueryTerm[] = []
  const pieces = q.split('"')
  pieces.forEach((piece, i) => {
    if (i % 2 === 1) {
      const words = piece.match(WORD) ?? []
      if (words.length > 0) terms.push({ kind: 'phrase', words })
      return
    }
    for (const match of piece.matchAll(WORD)) {
      const prefix = piece[match.index + match[0].length] === '*'
      terms.push({ kind: 'word', word: match[0], prefix })
    }
  })
  return terms
}

/**
 * The query as an FTS5 expression: each term a quoted string (a prefix with `*` after it),
 * all of them required. Only letters and digits ever reach the quotes, so no input is a syntax
 * error; null when the query has no word.
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
