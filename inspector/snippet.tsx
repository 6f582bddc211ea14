import { highlight, queryTerms } from '../src/core/search'
import { rankingTerms } from '../src/core/search/bm25'

/** A hit's snippet with the query's ranking words marked, as the service ranks them. */
export function Snippet({ text, q }: { text: string; q: string }) {
  return (
    <p class="snippet">
      {highlight(text, q, rankingTerms(queryTerms(q))).map((span, i) =>
        span.match ? <mark key={i}>{span.text}</mark> : span.text,
      )}
    </p>
  )
}
