import { type CorpusCounts, idf, type QueryTerm } from '../../core'
import { termExpression } from './fts-expression'

/**
 * The most events a term's matches are read for. A term matched by more ("common" here: the word
 * is in a large share of the events) finds no candidates of its own: it adds to the scores of
 * those the rarer terms found, and its frequency is estimated from how far back its newest
 * matches reach. A search's cost follows these bounds, never the index's size.
 */
export const TERM_MATCHES = 1000

/** The most candidates one index ranks. */
export const MOST_CANDIDATES = 2000

/**
 * The most matches of a term (or of every word) read to tell which candidates hold it: they are
 * read as one range of rowids, the candidates' (FTS5 answers `rowid IN (…)` a lookup at a time,
 * ~0.2 ms each). A candidate beyond them counts as not holding it.
 */
export const HOLDING_SCAN = 4 * TERM_MATCHES

/** The most common terms scored: the rarest of them (each costs a scan). */
export const MOST_COMMON_SCORED = 8

/**
 * The least IDF a common term is scanned for: one in more than about a third of the events weighs
 * next to nothing in BM25 (a word of every event, nothing at all), whatever holds it.
 */
const LEAST_SCANNED_IDF = 1

/** What an index answers a ranking with, in its own rowids (ascending: newest first). */
export interface RankSource {
  /** The events it holds and their words in all. */
  corpus(): CorpusCounts
  /** The rowids from the first to the newest event (a share of it tells a common term's frequency). */
  span(): number
  /** The first `limit` rowids matching an expression, ascending. */
  matching(expression: string, limit: number): number[]
  /** The first `limit` rowids in [from, to] matching an expression, ascending. */
  between(expression: string, from: number, to: number, limit: number): number[]
}

/** Which of `rowids` (ascending) match an expression: its matches in their range, read up to {@link HOLDING_SCAN}. */
export function holding(source: RankSource, expression: string, rowids: readonly number[]): Set<number> {
  if (rowids.length === 0) return new Set()
  const wanted = new Set(rowids)
  return new Set(source.between(expression, rowids[0]!, rowids.at(-1)!, HOLDING_SCAN).filter((rowid) => wanted.has(rowid)))
}

/** An event found for ranking, by rowid: which terms it holds, whether it holds every word of the query. */
export interface Found {
  rowid: number
  holds: boolean[]
  all: boolean
}

/**
 * The candidates of a ranking by any of `terms` (see the core's `rankGathered`), with each term's
 * document frequency: every event holding one of the terms rare enough to be read whole (at most
 * {@link TERM_MATCHES} matches), rarest first, up to {@link MOST_CANDIDATES}; when every term is
 * common, the newest events holding every word (`all`, the query's expression) and then the newest
 * of each term. Which candidates hold the other terms and every word (unless `allIsEveryTerm`: the
 * ranking terms are the query's words) is asked of the index for them alone.
 *
 * @example
 * const { corpus, dfs, found } = gather(source, rankingTerms(queryTerms(q)), ftsExpression(q)!, false)
 */
export function gather(source: RankSource, terms: readonly QueryTerm[], all: string, allIsEveryTerm: boolean) {
  const expressions = terms.map(termExpression)
  const matches = expressions.map((expression) => source.matching(expression, TERM_MATCHES + 1))
  // The counts only a common term's estimate needs before the candidates are known.
  let corpus: CorpusCounts | null = null
  const counts = () => {
    corpus ??= source.corpus()
    return corpus
  }
  const dfs = matches.map((rowids) => (rowids.length <= TERM_MATCHES ? rowids.length : estimate(rowids, source.span(), counts())))
  const candidates = new Set<number>()
  const whole = new Set<number>()
  const rarestFirst = terms.map((_, t) => t).sort((a, b) => dfs[a]! - dfs[b]!)
  for (const t of rarestFirst) {
    const rowids = matches[t]!
    if (rowids.length > TERM_MATCHES || candidates.size + rowids.length > MOST_CANDIDATES) continue
    for (const rowid of rowids) candidates.add(rowid)
    whole.add(t)
  }
  if (candidates.size === 0) {
    // Every term common: the newest events that hold them all, then each term's newest.
    for (const rowid of source.matching(all, TERM_MATCHES)) candidates.add(rowid)
    for (const t of rarestFirst) {
      for (const rowid of matches[t]!) if (candidates.size < MOST_CANDIDATES) candidates.add(rowid)
    }
  }
  const rowids = [...candidates].sort((a, b) => a - b)
  // The terms not read whole: the rarest few that weigh anything scored by a scan of their matches, the rest not.
  const weighs = (t: number) => idf(counts().documents, dfs[t]!) >= LEAST_SCANNED_IDF
  const scanned = new Set(rarestFirst.filter((t) => !whole.has(t) && weighs(t)).slice(0, MOST_COMMON_SCORED))
  const holds = expressions.map((expression, t) =>
    whole.has(t) ? new Set(matches[t]) : scanned.has(t) ? holding(source, expression, rowids) : new Set<number>(),
  )
  // Every word of the query a ranking term: holding them all is holding every word (no statement).
  const allOf = allIsEveryTerm || rowids.length === 0 ? null : holding(source, all, rowids)
  const found: Found[] = rowids.map((rowid) => {
    const held = holds.map((set) => set.has(rowid))
    return { rowid, holds: held, all: allOf ? allOf.has(rowid) : held.every(Boolean) }
  })
  // One candidate or none needs no scores: the counts are not read.
  return { corpus: found.length > 1 ? counts() : { documents: 0, tokens: 0 }, dfs, found }
}

/**
 * A common term's document frequency, from the rowids its newest matches span: as many matches
 * again in each such stretch of the index (at least what was read, at most every event).
 */
function estimate(rowids: readonly number[], span: number, corpus: CorpusCounts): number {
  const reached = rowids.at(-1)! - rowids[0]! + 1
  return Math.min(
    Math.max(corpus.documents, rowids.length),
    Math.max(rowids.length, Math.round((rowids.length * span) / reached)),
  )
}
