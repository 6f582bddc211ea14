import { folded, type QueryTerm, WORD, wordKey } from '.'

/**
 * Ranking one window of matches by relevance without FTS5's `rank`: its bm25() weighs each
 * phrase by an IDF it counts over the phrase's whole doclist, so every window cost all the
 * matches in the log. Here each match is scored from its own text as FTS5's `highlight()` marks
 * it: BM25 (k1 1.2, b 0.75, FTS5's) over the phrases' frequencies and the text's length in words,
 * the average length the window's. Every match of a query holds every phrase, so an IDF counted
 * in the window would be the same for all: the phrases weigh alike.
 */

/** Opens and closes a marked match in the text given (`highlight(search, 0, char(1), char(2))`). */
export const MARK_OPEN = '\u0001'
export const MARK_CLOSE = '\u0002'

const K1 = 1.2
const B = 0.75

/** A match of the window: its seq and its text with the query's matches marked. */
export interface MarkedMatch {
  seq: number
  marked: string
}

/** A query term as words to compare with a text's (by their keys; a prefix folded), the last a prefix or not. */
interface Pattern {
  words: string[]
  prefix: boolean
}

const patternOf = (term: QueryTerm): Pattern =>
  term.kind === 'phrase'
    ? { words: term.words.map(wordKey), prefix: false }
    : { words: [term.prefix ? folded(term.word) : wordKey(term.word)], prefix: term.prefix }

/** How many times a pattern occurs in a marked piece's words (their keys, and as folded for a prefix). */
function occurrences(words: string[], raw: string[], pattern: Pattern): number {
  let count = 0
  const last = pattern.words.length - 1
  for (let start = 0; start + last < words.length; start++) {
    let found = true
    for (let k = 0; k <= last && found; k++) {
      const word = words[start + k]!
      found =
        k === last && pattern.prefix
          ? word.startsWith(pattern.words[k]!) || raw[start + k]!.startsWith(pattern.words[k]!)
          : word === pattern.words[k]
    }
    if (found) count++
  }
  return count
}

/**
 * A match's length in words and each pattern's frequency, counted in its marked pieces only (an
 * occurrence is always inside one). At least 1 each: the match holds every phrase, whatever a
 * word the tokenizers split apart (FTS5's unicode61 and `WORD` differ on rare characters).
 */
function frequencies(marked: string, patterns: Pattern[]): { length: number; counts: number[] } {
  const counts = patterns.map(() => 0)
  const pieces = marked.split(MARK_OPEN)
  let length = 0
  pieces.forEach((piece, i) => {
    length += piece.match(WORD)?.length ?? 0
    if (i === 0) return
    const close = piece.indexOf(MARK_CLOSE)
    const marked = (close < 0 ? piece : piece.slice(0, close)).match(WORD) ?? []
    const words = marked.map(wordKey)
    const raw = marked.map(folded)
    patterns.forEach((pattern, p) => {
      counts[p]! += occurrences(words, raw, pattern)
    })
  })
  return { length, counts: counts.map((count) => Math.max(1, count)) }
}

/**
 * The seqs of a window's matches, best first, ties newest first (BM25 as above).
 *
 * @example
 * rankWindow([{ seq: 1, marked: '\u0001deploy\u0002 \u0001deploy\u0002' }, { seq: 2, marked: 'a \u0001deploy\u0002 note' }], queryTerms('deploy')) // [1, 2]
 */
export function rankWindow(matches: readonly MarkedMatch[], terms: readonly QueryTerm[]): number[] {
  const patterns = terms.map(patternOf)
  const counted = matches.map((match) => ({ seq: match.seq, ...frequencies(match.marked, patterns) }))
  const average = Math.max(1, counted.reduce((sum, match) => sum + match.length, 0) / Math.max(1, counted.length))
  const scored = counted.map(({ seq, length, counts }) => {
    const norm = K1 * (1 - B + (B * length) / average)
    return { seq, score: counts.reduce((sum, tf) => sum + (tf * (K1 + 1)) / (tf + norm), 0) }
  })
  return scored.sort((a, b) => b.score - a.score || b.seq - a.seq).map((match) => match.seq)
}
