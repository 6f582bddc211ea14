import { isHighSurrogate } from '../text'

/**
 * Token estimation: a pluggable estimator port, a guard that keeps any BPE tokenizer linear, and
 * the one place where an event's estimate is computed.
 */

/** Counts the tokens of a text. Implementations must be pure and synchronous. */
export interface TokenEstimator {
  /** What is counting, e.g. `gpt-tokenizer/cl100k_base`; shown in stats and benchmarks. */
  readonly name: string
  count(text: string): number
}

/**
 * Runs this long or longer are counted in slices of this size. BPE merges inside one
 * pre-tokenizer piece are quadratic in its length, and a piece is a run of letters, of
 * punctuation or of spaces; normal prose never has such runs, so its counts do not change.
 */
export const MAX_RUN = 256

const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${MAX_RUN},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN},}|\\s{${MAX_RUN},}`, 'gu')

/**
 * Counts `text` with `countPiece`, cutting every run of {@link MAX_RUN} or more letters,
 * punctuation marks or spaces into slices of {@link MAX_RUN} characters first (never inside a
 * surrogate pair), so the cost stays linear in the length of the text whatever it holds.
 *
 * @example
 * const count = (s: string) => linearCount(s, (piece) => encode(piece).length)
 */
export function linearCount(text: string, countPiece: (piece: string) => number): number {
  let total = 0
  let from = 0
  for (const match of text.matchAll(LONG_RUN)) {
    const start = match.index
    if (start > from) total += countPiece(text.slice(from, start))
    const end = start + match[0].length
    for (let at = start; at < end; ) {
      let cut = Math.min(at + MAX_RUN, end)
      if (cut < end && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1
      total += countPiece(text.slice(at, cut))
      at = cut
    }
    from = end
  }
  if (from < text.length) total += countPiece(text.slice(from))
  return total
}

/**
 * Wraps an estimator so that it counts how many estimates it made: benchmarks and tests use it
 * to check that every event is estimated exactly once.
 */
export function countingEstimator(inner: TokenEstimator): TokenEstimator & { readonly calls: number } {
  let calls = 0
  return {
    name: inner.name,
    get calls() {
      return calls
    },
    count(text: string) {
      calls += 1
      return inner.count(text)
    },
  }
}
