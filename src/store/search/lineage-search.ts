import { SEARCH_START, type SearchPosition } from '../../contract/schemas'
import {
  allSeqs,
  type MessageEvent,
  type QueryTerm,
  queryTerms,
  type RecallHit,
  rankingTerms,
  searchTextOf,
  type ViewColumns,
} from '../../core'
import type { EventRow, SessionLog } from '../log/log'
import type { SessionRecord } from '../log/session-row'
import type { ViewCache } from '../log/view-cache'
import { anyExpression, ftsExpression } from './fts-expression'
import type { RankedSearch } from './ranked-search'
import type { PageHit, SearchExpression, SessionSearch } from './search'

/** A plain-text query as a search (null: it has no word). */
export function searchOf(q: string): SearchExpression | null {
  const expression = ftsExpression(q)
  return expression === null ? null : { expression, terms: queryTerms(q) }
}

/** How a search matches: every word (`all`), any of them ranked (`any`), or both, every word first (`auto`). */
export type SearchMode = 'all' | 'any' | 'auto'

/** A hit of a page: its event's row, where it is, its snippet, whether it holds every word. */
export interface SearchHit {
  seq: number
  row: EventRow
  covered: boolean
  abandoned: boolean
  snippet: string
  match: 'all' | 'any'
}

/** What a search asks for: a plain-text query (see `./fts-expression`) and its filters and page. */
export interface SearchQuery {
  q: string
  mode: SearchMode
  role?: string
  scope: 'all' | 'covered' | 'view'
  /** `all`: abandoned branches' events too. */
  branches: 'lineage' | 'all'
  limit: number
  /** Where in the ranked matches (role filter applied) the page starts. */
  from: SearchPosition
}

/**
 * Whether a seq is in a view (its seqs sorted once, then looked up by halving), and the seqs a
 * scope's matches can have: a view's from its first seq on, covered ones up to the newest seq
 * outside the view (the view is mostly the log's tail, so this skips it).
 */
function membership(view: ViewColumns, version: number) {
  const seqs = allSeqs(view).sort()
  let tail = seqs.length
  while (tail > 0 && seqs[tail - 1] === version - (seqs.length - tail)) tail--
  const newestOutside = version - (seqs.length - tail)
  const bounds = {
    all: {},
    view: { atLeast: seqs[0] ?? version + 1 },
    covered: { below: newestOutside + 1 },
  }
  const isInView = (seq: number) => {
    let low = 0
    let high = seqs.length - 1
    while (low <= high) {
      const mid = (low + high) >> 1
      if (seqs[mid] === seq) return true
      if (seqs[mid]! < seq) low = mid + 1
      else high = mid - 1
    }
    return false
  }
  return { isInView, bounds }
}

type Membership = ReturnType<typeof membership>

/** A session's searches over its lineage: a page of hits (`GET /search`), and what `recall_history` finds. */
export class LineageSearch {
  /** The view's membership as last made, by the cached view's columns (replaced at a boundary; appends add to them). */
  private readonly members = new WeakMap<object, { length: number; version: number; membership: Membership }>()

  constructor(
    private readonly log: SessionLog,
    private readonly view: ViewCache,
    private readonly searchIndex: SessionSearch,
    private readonly ranked: RankedSearch,
  ) {}

  /**
   * A page of search hits (`GET /search`): matches of the search, best first, filtered by role in
   * SQL and by scope against the view, from position `from` on; each with its event's row, whether
   * it is covered (outside the view) and a snippet; `next` where the page after starts.
   */
  page(record: SessionRecord, expression: SearchExpression, query: Omit<SearchQuery, 'q'>) {
    this.searchIndex.keepMerged()
    return query.mode === 'all' ? this.hits(record, expression, query) : this.rankedHits(record, expression, query)
  }

  /** What `recall_history` answers: the covered events best matching a plain-text query (mode `auto`), with their text. */
  recallHits(record: SessionRecord, q: string, limit: number): RecallHit[] {
    const expression = searchOf(q)
    if (expression === null) return []
    // Covered events of the lineage only: an abandoned branch is never recalled.
    const query = { mode: 'auto', limit, scope: 'covered', branches: 'lineage', from: SEARCH_START } as const
    const { hits } = this.rankedHits(record, expression, query)
    return hits.map((hit) => {
      const [event] = this.log.range(hit.seq, hit.seq) as MessageEvent[]
      return { id: event!.id, seq: hit.seq, role: event!.message.role, text: searchTextOf(event!.message) }
    })
  }

  /**
   * The hits of a search across sessions that are this session's: each of `seqs` on the lineage
   * (an abandoned one is not a hit), with its row, whether it is covered and its snippet around
   * any of the query's words; in the order of `seqs`.
   */
  found(record: SessionRecord, q: string, seqs: readonly number[]): Omit<SearchHit, 'match'>[] {
    const onLineage = record.rewinds === 0 ? () => true : this.log.rewinds.onLineage
    const kept = seqs.filter((seq) => seq >= 1 && seq <= record.version && onLineage(seq))
    // An event after the newest boundary is in the view: the view's columns (a cold object reads
    // them from storage) are needed only for one at or before it.
    const isInView = kept.every((seq) => seq > record.boundarySeq) ? () => true : this.membershipOf(record).isInView
    const terms = rankingTerms(queryTerms(q))
    const found = terms.length === 0 ? new Map<number, PageHit>() : this.searchIndex.page(anyExpression(terms), kept)
    return kept.flatMap((seq) => {
      const hit = found.get(seq)
      return hit ? [{ seq, covered: !isInView(seq), abandoned: false, ...hit }] : []
    })
  }

  /** The view's membership: made again only after a write (each search would sort the view's seqs). */
  private membershipOf(record: SessionRecord): Membership {
    const columns = this.view.columnsOf(record)
    const view = this.view.snapshot(record)
    const made = this.members.get(columns)
    if (made && made.length === view.length && made.version === record.version) return made.membership
    const fresh = membership(view, record.version)
    this.members.set(columns, { length: view.length, version: record.version, membership: fresh })
    return fresh
  }

  /**
   * The hits of a search by any of its words (modes `any` and `auto`): the ranking of `RankedSearch`
   * filtered by branch and scope, from position `from.offset` in it on; and where the page after starts.
   */
  private rankedHits(record: SessionRecord, expression: SearchExpression, query: Omit<SearchQuery, 'q'>) {
    const { isInView, bounds } = this.membershipOf(record)
    const onLineage = record.rewinds === 0 ? () => true : this.log.rewinds.onLineage
    const everyBranch = query.branches === 'all'
    const terms: QueryTerm[] = rankingTerms(expression.terms)
    const scope = { ...(everyBranch ? {} : bounds[query.scope]), ...(query.role ? { role: query.role } : {}) }
    const ranked = { terms, all: expression.expression, allIsEveryTerm: terms.length === expression.terms.length }
    const ranking = this.ranked.rank(ranked, record.version, scope, query.mode === 'auto')
    const page: { seq: number; covered: boolean; abandoned: boolean; match: 'all' | 'any' }[] = []
    let next: SearchPosition | null = null
    for (let i = query.from.offset; i < ranking.length; i++) {
      const { seq, match } = ranking[i]!
      const abandoned = !onLineage(seq)
      if (abandoned && !everyBranch) continue
      const covered = abandoned || !isInView(seq)
      if (!abandoned && query.scope === (covered ? 'view' : 'covered')) continue
      if (page.length === query.limit) {
        next = { below: null, offset: i }
        break
      }
      page.push({ seq, covered, abandoned, match })
    }
    const found = this.searchIndex.page(
      anyExpression(terms),
      page.map((hit) => hit.seq),
    )
    const hits: SearchHit[] = page.map((hit) => {
      const match = found.get(hit.seq)
      if (!match) throw new Error(`event ${hit.seq} is missing: the session was deleted while it was read`)
      return { ...hit, ...match }
    })
    return { hits, next }
  }

  /** The hits of a search (its FTS5 expression, its filters), and where the page after starts. */
  private hits(record: SessionRecord, expression: SearchExpression, query: Omit<SearchQuery, 'q'>) {
    const { isInView, bounds } = this.membershipOf(record)
    const onLineage = record.rewinds === 0 ? () => true : this.log.rewinds.onLineage
    const everyBranch = query.branches === 'all'
    const page: { seq: number; covered: boolean; abandoned: boolean; found?: PageHit }[] = []
    let next: SearchPosition | null = null
    const matches = this.searchIndex.ranked(expression, {
      from: query.from,
      // Abandoned events lie anywhere: a scope's bounds hold for the lineage only.
      ...(everyBranch ? {} : bounds[query.scope]),
      ...(query.role ? { role: query.role } : {}),
      page: query.limit,
    })
    for (const { seq, at, found } of matches) {
      const abandoned = !onLineage(seq)
      if (abandoned && !everyBranch) continue
      const covered = abandoned || !isInView(seq)
      if (!abandoned && query.scope === (covered ? 'view' : 'covered')) continue
      if (page.length === query.limit) {
        next = at
        break
      }
      page.push({ seq, covered, abandoned, found })
    }
    // Hits the window's first statement did not bring (a larger window's): read in one more.
    const missing = this.searchIndex.page(
      expression.expression,
      page.filter((hit) => !hit.found).map((hit) => hit.seq),
    )
    const hits: SearchHit[] = page.map(({ found, ...hit }) => {
      const match = found ?? missing.get(hit.seq)
      if (!match) throw new Error(`event ${hit.seq} is missing: the session was deleted while it was read`)
      return { ...hit, ...match, match: 'all' }
    })
    return { hits, next }
  }
}
