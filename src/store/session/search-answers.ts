import { ServiceError } from '../../contract/errors'
import { encodeSearchCursor, SEARCH_START, type SearchPageJson, type SearchPosition } from '../../contract/schemas'
import { allSeqs, type MessageEvent, queryTerms, type RecallHit, searchTextOf, type ViewColumns } from '../../core'
import { jsonArray, jsonObject } from '../../json-stream'
import { type PinnedSeqs, withPin } from './event-json'
import { ftsExpression } from './fts-expression'
import type { EventRow, SessionLog } from './log'
import type { PageHit, SearchExpression, SessionSearch } from './search'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

const json = (value: unknown) => JSON.stringify(value)

/** A plain-text query as a search (null: it has no word). */
function searchOf(q: string): SearchExpression | null {
  const expression = ftsExpression(q)
  return expression === null ? null : { expression, terms: queryTerms(q) }
}

/** A hit of a page: its event's row, where it is, its snippet. */
interface Hit {
  seq: number
  row: EventRow
  covered: boolean
  abandoned: boolean
  snippet: string
}

/** What a search asks for: a plain-text query (see `./fts-expression`) and its filters and page. */
export interface SearchQuery {
  q: string
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

/** A page of hits, each event written from its row. */
function* searchJson(log: SessionLog, hits: Hit[], next: SearchPosition | null, pinned: PinnedSeqs) {
  yield* jsonObject<SearchPageJson>({
    hits: jsonArray(
      hits.map((hit) =>
        jsonObject<SearchPageJson['hits'][number]>({
          event: withPin(log.json(hit.row), pinned.has(hit.seq)),
          covered: json(hit.covered),
          abandoned: json(hit.abandoned),
          snippet: json(hit.snippet),
        }),
      ),
    ),
    nextCursor: json(next === null ? null : encodeSearchCursor(next)),
  })
}

type Membership = ReturnType<typeof membership>

/** A session's search answers (`GET /search`) and what `recall_history` finds, over its lineage. */
export class SearchAnswers {
  /** The view's membership as last made, by the cached view's columns (replaced at a boundary; appends add to them). */
  private readonly members = new WeakMap<object, { length: number; version: number; membership: Membership }>()

  constructor(
    private readonly log: SessionLog,
    private readonly view: ViewCache,
    private readonly searchIndex: SessionSearch,
    /** The seqs of the messages pinned now. */
    private readonly pinned: () => PinnedSeqs,
  ) {}

  /**
   * A page of search hits (`GET /search`), for a session: matches of the query, best first,
   * filtered by role in SQL and by scope against the view, from position `from` on; each with its
   * event, whether it is covered (outside the view) and a snippet; `nextCursor` where the page
   * after starts. A query with no word to search for is a 400 at once.
   */
  search(query: SearchQuery): (record: SessionRecord) => Iterable<string> {
    // The query is checked before the session is looked up: a bad request is a 400 whatever the session.
    const expression = searchOf(query.q)
    if (expression === null) throw new ServiceError('invalid_request', 'query.q: has no word to search for (letters or digits)')
    return (record) => {
      this.searchIndex.keepMerged()
      const { hits, next } = this.hits(record, expression, query)
      return searchJson(this.log, hits, next, this.pinned())
    }
  }

  /** What `recall_history` answers: the covered events matching a plain-text query, best first, with their text. */
  recallHits(record: SessionRecord, q: string, limit: number): RecallHit[] {
    const expression = searchOf(q)
    if (expression === null) return []
    // Covered events of the lineage only: an abandoned branch is never recalled.
    const { hits } = this.hits(record, expression, { limit, scope: 'covered', branches: 'lineage', from: SEARCH_START })
    return hits.map((hit) => {
      const [event] = this.log.range(hit.seq, hit.seq) as MessageEvent[]
      return { id: event!.id, seq: hit.seq, role: event!.message.role, text: searchTextOf(event!.message) }
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
    const hits: Hit[] = page.map(({ found, ...hit }) => {
      const match = found ?? missing.get(hit.seq)
      if (!match) throw new Error(`event ${hit.seq} is missing: the session was deleted while it was read`)
      return { ...hit, ...match }
    })
    return { hits, next }
  }
}
