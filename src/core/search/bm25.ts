import { folded, type QueryTerm } from '.'
import { verbBaseOf } from './irregular'
import { porterStem } from './porter'
import { isStopWord } from './stop-words'

/**
 * Ranking by any of a query's words: BM25 over the events that hold at least one of them, made
 * for chat. A word counts once an event (a message is short: a word said twice in one is not
 * twice the answer), weighed by how rare it is among the events searched (its IDF) and a little
 * by the event's length (b 0.3, not BM25's usual 0.75: the short messages — greetings, "that's
 * great!" — seldom answer anything, and a long one is not less likely to). Each event gains a
 * quarter of the scores of the events right before and after it in its session: a question asked
 * just before an answer often holds the words the answer lacks. The index finds the events and
 * counts; this scores and orders them, so one ranking serves a session's index and a user's
 * search shards alike (their counts summed).
 */

const K1 = 1.2
const B = 0.3
/** The share of a neighbour's score an event gains. */
const NEIGHBOUR = 0.25

/** The most terms a query is ranked by (a 512-character query has at most ~250 words). */
export const MOST_RANKING_TERMS = 32

/** What a term is compared by: its stem (an irregular verb's base's), a phrase its words' stems. */
const keyOf = (term: QueryTerm) =>
  term.kind === 'phrase'
    ? `"${term.words.map((word) => porterStem(folded(word))).join(' ')}"`
    : term.prefix
      ? `${folded(term.word)}*`
      : porterStem(verbBaseOf(folded(term.word)))

/**
 * The terms a query (its `queryTerms`) is ranked by: its words without the stop words, its
 * phrases and prefixes, each stem once, at most {@link MOST_RANKING_TERMS}. A query of stop words
 * alone keeps them.
 *
 * @example
 * rankingTerms(queryTerms('When did she go to the support groups?')) // go, support, groups
 */
export function rankingTerms(terms: readonly QueryTerm[]): QueryTerm[] {
  const kept = terms.filter((term) => term.kind === 'phrase' || term.prefix || !isStopWord(folded(term.word)))
  const seen = new Set<string>()
  const distinct = (kept.length > 0 ? kept : terms).filter((term) => {
    const key = keyOf(term)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  return distinct.slice(0, MOST_RANKING_TERMS)
}

/** The events searched: how many, and their words in all (the average length is their ratio). */
export interface CorpusCounts {
  documents: number
  tokens: number
}

/** An event holding some of the terms, as an index found it. */
export interface Candidate {
  /** Its session (its neighbours are in the same one). */
  group: string
  /** Its seq in that session. */
  position: number
  /** Ties are ranked higher `order` first (the newer). */
  order: number
  /** Its length in words. */
  length: number
  /** Which of the ranking terms it holds, by their index. */
  holds: readonly boolean[]
  /** Whether it holds every word of the query (matches it in mode `all`). */
  all: boolean
}

/** What one index found: its counts, each term's document frequency, its candidates. */
export interface Gathered<C extends Candidate = Candidate> {
  corpus: CorpusCounts
  dfs: readonly number[]
  candidates: readonly C[]
}

/**
 * A term's inverse document frequency among `documents` events, `df` of which hold it (kept
 * above zero, so that a word in most events still counts a little).
 *
 * @example
 * idf(1000, 10) // ≈ 4.55
 */
export function idf(documents: number, df: number): number {
  return Math.max(1e-6, Math.log(1 + (documents - df + 0.5) / (df + 0.5)))
}

/** A ranked candidate: which part and which of its candidates, its score, whether it matched every word. */
export interface RankedHit<C extends Candidate> {
  candidate: C
  part: number
  score: number
}

/**
 * The candidates of one or more indexes in one ranking, best first: their counts summed, each
 * scored as above; with `allFirst` (mode `auto`), those holding every word first. Ties: higher
 * `order` first.
 *
 * @example
 * rankGathered([{ corpus: { documents: 10, tokens: 80 }, dfs: [2], candidates }], true)
 */
export function rankGathered<C extends Candidate>(parts: readonly Gathered<C>[], allFirst: boolean): RankedHit<C>[] {
  const documents = Math.max(
    1,
    parts.reduce((sum, part) => sum + part.corpus.documents, 0),
  )
  const tokens = parts.reduce((sum, part) => sum + part.corpus.tokens, 0)
  const average = Math.max(1, tokens / documents)
  const terms = Math.max(0, ...parts.map((part) => part.dfs.length))
  const weights = Array.from({ length: terms }, (_, t) =>
    idf(
      documents,
      Math.min(
        documents,
        parts.reduce((sum, part) => sum + (part.dfs[t] ?? 0), 0),
      ),
    ),
  )
  const base = (candidate: Candidate) => {
    const saturation = (K1 + 1) / (1 + K1 * (1 - B + (B * candidate.length) / average))
    let score = 0
    candidate.holds.forEach((held, t) => {
      if (held) score += weights[t]! * saturation
    })
    return score
  }
  const scored = parts.flatMap((part, p) => part.candidates.map((candidate) => ({ candidate, part: p, score: base(candidate) })))
  const at = new Map(scored.map((hit) => [`${hit.candidate.position}\u0000${hit.candidate.group}`, hit.score]))
  const near = (candidate: Candidate, by: number) => at.get(`${candidate.position + by}\u0000${candidate.group}`) ?? 0
  const ranked = scored.map((hit) => ({
    ...hit,
    score: hit.score + NEIGHBOUR * (near(hit.candidate, -1) + near(hit.candidate, 1)),
  }))
  return ranked.sort(
    (a, b) =>
      (allFirst ? Number(b.candidate.all) - Number(a.candidate.all) : 0) ||
      b.score - a.score ||
      b.candidate.order - a.candidate.order,
  )
}
