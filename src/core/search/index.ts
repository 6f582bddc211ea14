import type { Message } from '../events'
import { mediaOf, textOf } from '../parts'
import { verbBaseOf } from './irregular'
import { porterStem } from './porter'

/**
 * Search over a session's events, as plain text: what an event is found by, and how a query a
 * person typed becomes a full-text expression that can never be a syntax error.
 */

/** The text of a stored text/plain document, by its blob's name (null: none to index). */
export type DocumentText = (blob: string) => string | null

/**
 * The text an event is found by: its content's text, its tool calls' names and arguments, its tool
 * results' names and text, the titles of its documents and, given `documentText`, the text of its
 * text/plain documents.
 */
export function searchTextOf(message: Message, documentText: DocumentText = () => null): string {
  const parts: string[] = []
  const text = textOf(message.content)
  if (text) parts.push(text)
  for (const call of message.toolCalls ?? []) parts.push(call.name, call.arguments)
  for (const response of message.toolResponses ?? []) parts.push(response.name, textOf(response.data))
  for (const part of mediaOf(message)) {
    if (part.title) parts.push(part.title)
    const text = part.mediaType === 'text/plain' && 'blob' in part ? documentText(part.blob) : null
    if (text) parts.push(text)
  }
  return parts.join('\n')
}

/** A covered message a recall found: what the model is given of it (a hit of another session names it). */
export interface RecallHit {
  id: string
  seq: number
  role: string
  text: string
  sessionId?: string
  sessionTitle?: string | null
}

/** A word of a query or a text: a run of letters, digits (and the marks on them). */
export const WORD = /[\p{L}\p{N}\p{M}]+/gu

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

/** A word as search compares it: accents and case folded (FTS5's `remove_diacritics 2`, roughly). */
export const folded = (word: string) => word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/**
 * What two words are the same word by: folded, an irregular verb's base, stemmed (see `./porter`).
 *
 * @example
 * wordKey('Went') === wordKey('going') // true
 */
export const wordKey = (word: string) => porterStem(verbBaseOf(folded(word)))

/** A piece of a text, marked when it is a word the query matches. */
export interface TextSpan {
  text: string
  match: boolean
}

/**
 * A text (a snippet, say) cut into spans, the words a query matches marked: whole words by their
 * stems (see {@link wordKey}), prefixes for `word*`, each word of a phrase; case- and
 * accent-insensitive, as search is. `terms` says which of the query's (its ranking terms: a
 * question's common words are no match).
 *
 * @example
 * highlight('Zürich on Monday', 'zurich') // [{ text: 'Zürich', match: true }, { text: ' on Monday', match: false }]
 */
export function highlight(text: string, q: string, terms: readonly QueryTerm[] = queryTerms(q)): TextSpan[] {
  const exact = new Set<string>()
  const prefixes: string[] = []
  for (const term of terms) {
    if (term.kind === 'phrase') for (const word of term.words) exact.add(wordKey(word))
    else if (term.prefix) prefixes.push(folded(term.word))
    else exact.add(wordKey(term.word))
  }
  const matches = (word: string) =>
    exact.has(wordKey(word)) || prefixes.some((prefix) => folded(word).startsWith(prefix) || wordKey(word).startsWith(prefix))
  const spans: TextSpan[] = []
  const push = (piece: string, match: boolean) => {
    if (piece === '') return
    const last = spans.at(-1)
    if (last && last.match === match) last.text += piece
    else spans.push({ text: piece, match })
  }
  let at = 0
  for (const found of text.matchAll(WORD)) {
    push(text.slice(at, found.index), false)
    push(found[0], matches(found[0]))
    at = found.index + found[0].length
  }
  push(text.slice(at), false)
  return spans
}
