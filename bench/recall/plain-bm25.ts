/**
 * The floor the issue measures against: plain any-word BM25 over the same turns, as FTS5 ranks
 * an `OR` of a query's words in a `unicode61` table — whole words, case and accents folded, no
 * stems, no stop words, each occurrence counted, FTS5's IDF (`log((N - n + 0.5) / (n + 0.5))`,
 * at least 1e-6) and its k1 1.2, b 0.75.
 */
import { folded, WORD } from '../../src/core/search'

const K1 = 1.2
const B = 0.75

const wordsOf = (text: string) => (text.match(WORD) ?? []).map(folded)

/** An index of documents by id, ranked by any of a query's words. */
export class PlainBm25 {
  private readonly docs: { id: string; length: number; counts: Map<string, number> }[] = []
  private readonly df = new Map<string, number>()
  private tokens = 0

  add(id: string, text: string): void {
    const words = wordsOf(text)
    const counts = new Map<string, number>()
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
    for (const word of counts.keys()) this.df.set(word, (this.df.get(word) ?? 0) + 1)
    this.docs.push({ id, length: words.length, counts })
    this.tokens += words.length
  }

  /** The ids of the best `limit` documents holding any of the query's words, best first (ties: the later added first). */
  search(query: string, limit: number): string[] {
    const terms = [...new Set(wordsOf(query))]
    const n = this.docs.length
    const average = this.tokens / Math.max(n, 1)
    const idf = (term: string) => {
      const hits = this.df.get(term) ?? 0
      return Math.max(1e-6, Math.log((n - hits + 0.5) / (hits + 0.5)))
    }
    const weights = terms.map(idf)
    const scored: { index: number; score: number }[] = []
    this.docs.forEach((doc, index) => {
      let score = 0
      let any = false
      terms.forEach((term, t) => {
        const tf = doc.counts.get(term)
        if (!tf) return
        any = true
        score += (weights[t]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / average))
      })
      if (any) scored.push({ index, score })
    })
    scored.sort((x, y) => y.score - x.score || y.index - x.index)
    return scored.slice(0, limit).map((hit) => this.docs[hit.index]!.id)
  }
}
