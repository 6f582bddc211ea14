import { ServiceError } from '../../contract/errors'
import { LIMITS } from '../../contract/limits'
import {
  type CompactionResultJson,
  type CompactionsPageJson,
  encodeSearchCursor,
  type LogPageJson,
  type OpenAIViewJson,
  SEARCH_START,
  type SearchPageJson,
  type SearchPosition,
  type TurnResponseJson,
  type ViewJson,
} from '../../contract/schemas'
import type { TurnResult } from '../../contract/turn-result'
import {
  allSeqs,
  type CompactionResult,
  lineageRuns,
  type MessageEvent,
  type RecallHit,
  searchTextOf,
  utf8Length,
  type ViewColumns,
} from '../../core'
import { jsonArray, jsonLater, jsonObject } from '../../json-stream'
import type { SessionBranches } from './branches'
import { type SessionFacts, sessionFacts } from './facts'
import { ftsExpression } from './fts-expression'
import type { SessionLog } from './log'
import { openAIViewMessages } from './openai-view'
import type { SessionSearch } from './search'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

/**
 * The session object's large answers as JSON text generated piece by piece from storage (see
 * `../json-stream`): what they hold is fixed when they are made (a version, a snapshot of view
 * entries), the bodies are read as the reader gets to them. Events never change once written,
 * so a body read late is the body as of the snapshot.
 */

const json = (value: unknown) => JSON.stringify(value)

/**
 * A page of the log after `after`, as of `version`: at most `limit` events, ending after the
 * event that brings it to `LIMITS.eventsPage.bytes` of JSON (so a page of large events holds
 * fewer); `nextAfter` is the last seq sent while the log goes on, null at its end.
 */
function logPageJson(log: SessionLog, version: number, after: number, limit: number): Generator<string> {
  let count = 0
  let last = after
  function* events(): Generator<string> {
    let bytes = 0
    for (const event of log.jsonRange(after + 1, Math.min(version, after + limit))) {
      yield event.json
      count += 1
      bytes += utf8Length(event.json)
      last = event.seq
      if (count >= limit || bytes >= LIMITS.eventsPage.bytes) break
    }
  }
  return jsonObject<LogPageJson>({
    events: jsonArray(events()),
    version: json(version),
    // Known once the events are written: where they stopped.
    nextAfter: jsonLater(() => json(count > 0 && last < version ? last : null)),
  })
}

/** `GET /view`: the view's events and counters. */
function* viewJson(
  view: ViewCache,
  seqs: Int32Array,
  counters: { tokens: number; turns: number; version: number },
): Generator<string> {
  yield* jsonObject<ViewJson>({
    events: jsonArray(view.jsonOf(seqs)),
    tokens: json(counters.tokens),
    turns: json(counters.turns),
    version: json(counters.version),
  })
}

/** A CompactionResult, its events written from storage. */
function compactionJson(view: ViewCache, result: CompactionResult): Generator<string> {
  return jsonObject<CompactionResultJson>({
    unchanged: json(result.unchanged),
    reason: json(result.reason),
    // Covered events left the view: nothing to keep them in memory for.
    covered: jsonArray(view.jsonOf(result.covered, 0)),
    pinned: jsonArray(view.jsonOf(result.pinned)),
    summary: jsonArray(result.summary.map(json)),
    preserved: jsonArray(view.jsonOf(result.preserved)),
    tokensEstimatedSaved: json(result.tokensEstimatedSaved),
    boundary: json(result.boundary),
    version: json(result.version),
    ...(result.dryRun ? { dryRun: 'true' } : {}),
  })
}

/** A turn's result, its compaction results written from storage. */
function turnResultJson(view: ViewCache, result: TurnResult): Generator<string> {
  const { compaction, context } = result
  return jsonObject<TurnResponseJson>({
    reply: json(result.reply),
    status: json(result.status),
    toolCalls: json(result.toolCalls),
    events: json(result.events),
    compaction: compaction === null || 'error' in compaction ? json(compaction) : compactionJson(view, compaction),
    usage: json(result.usage),
    context:
      context === null
        ? 'null'
        : jsonObject<NonNullable<TurnResponseJson['context']>>({
            promptTokens: json(context.promptTokens),
            budget: json(context.budget),
            compactions: jsonArray(context.compactions.map((pass) => compactionJson(view, pass))),
            retried: json(context.retried),
            calibration: json(context.calibration),
          }),
  })
}

/**
 * `GET /compactions`: the boundaries before `before`, newest first, each with the summary events
 * written with it and what it recorded (`tokensBefore` / `tokensAfter` null when it predates them).
 */
function* compactionsJson(log: SessionLog, before: number, limit: number): Generator<string> {
  const found = log.boundariesBefore(before, limit + 1)
  const page = found.slice(0, limit)
  yield* jsonObject<CompactionsPageJson>({
    compactions: jsonArray(
      page.map((event) => {
        const boundary = event.type === 'COMPACTION' ? event.boundary : null
        const summary =
          boundary && boundary.summary.length > 0 ? log.range(event.seq + 1, event.seq + boundary.summary.length) : []
        return json({
          boundary: event,
          summary,
          coveredEventCount: boundary?.coveredEventCount ?? 0,
          tokensEstimatedSaved: boundary?.tokensEstimatedSaved ?? 0,
          tokensBefore: boundary?.tokensBefore ?? null,
          tokensAfter: boundary?.tokensAfter ?? null,
        })
      }),
    ),
    nextBefore: json(found.length > limit ? page.at(-1)!.seq : null),
  })
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

/**
 * Whether a seq is on the lineage: its runs walked once (a row per rewind on it), then looked up
 * by halving.
 */
function lineageMembership(log: SessionLog): (seq: number) => boolean {
  const runs = [...lineageRuns(Number.MAX_SAFE_INTEGER, (seq) => log.rewindAtOrBefore(seq))].reverse()
  return (seq) => {
    let low = 0
    let high = runs.length - 1
    while (low <= high) {
      const mid = (low + high) >> 1
      const run = runs[mid]!
      if (seq < run.from) high = mid - 1
      else if (seq > run.to) low = mid + 1
      else return true
    }
    return false
  }
}

/** A page of hits, each event written from its row. */
function* searchJson(
  log: SessionLog,
  hits: { seq: number; covered: boolean; abandoned: boolean; snippet: string }[],
  next: SearchPosition | null,
) {
  yield* jsonObject<SearchPageJson>({
    hits: jsonArray(
      hits.map((hit) =>
        jsonObject<SearchPageJson['hits'][number]>({
          event: [...log.jsonRange(hit.seq, hit.seq)][0]!.json,
          covered: json(hit.covered),
          abandoned: json(hit.abandoned),
          snippet: json(hit.snippet),
        }),
      ),
    ),
    nextCursor: json(next === null ? null : encodeSearchCursor(next)),
  })
}

/** How `GET /view` writes the view: as events, or as OpenAI chat messages. */
export type ViewFormat = 'events' | 'openai'

/** One session's large answers, as JSON text made from its log and view while the reader takes it. */
export class SessionAnswers {
  constructor(
    private readonly log: SessionLog,
    private readonly view: ViewCache,
    private readonly searchIndex: SessionSearch,
    private readonly branchesOf: SessionBranches,
  ) {}

  /**
   * A page of search hits (`GET /search`), for a session: matches of the query, best first,
   * filtered by role in SQL and by scope against the view, from position `from` on; each with its
   * event, whether it is covered (outside the view) and a snippet; `nextCursor` where the page
   * after starts. A query with no word to search for is a 400 at once.
   */
  search(query: SearchQuery): (record: SessionRecord) => Iterable<string> {
    // The query is checked before the session is looked up: a bad request is a 400 whatever the session.
    const expression = ftsExpression(query.q)
    if (expression === null) throw new ServiceError('invalid_request', 'query.q: has no word to search for (letters or digits)')
    return (record) => {
      const { hits, next } = this.hits(record, expression, query)
      return searchJson(this.log, hits, next)
    }
  }

  /** What `recall_history` answers: the covered events matching a plain-text query, best first, with their text. */
  recallHits(record: SessionRecord, q: string, limit: number): RecallHit[] {
    const expression = ftsExpression(q)
    if (expression === null) return []
    // Covered events of the lineage only: an abandoned branch is never recalled.
    const { hits } = this.hits(record, expression, { limit, scope: 'covered', branches: 'lineage', from: SEARCH_START })
    return hits.map((hit) => {
      const [event] = this.log.range(hit.seq, hit.seq) as MessageEvent[]
      return { id: event!.id, seq: hit.seq, role: event!.message.role, text: searchTextOf(event!.message) }
    })
  }

  /** The hits of a search (its FTS5 expression, its filters), and where the page after starts. */
  private hits(record: SessionRecord, expression: string, query: Omit<SearchQuery, 'q'>) {
    const { isInView, bounds } = membership(this.view.snapshot(record), record.version)
    const onLineage = record.rewinds === 0 ? () => true : lineageMembership(this.log)
    const everyBranch = query.branches === 'all'
    const page: { seq: number; covered: boolean; abandoned: boolean }[] = []
    let next: SearchPosition | null = null
    const matches = this.searchIndex.ranked(expression, {
      from: query.from,
      // Abandoned events lie anywhere: a scope's bounds hold for the lineage only.
      ...(everyBranch ? {} : bounds[query.scope]),
      ...(query.role ? { role: query.role } : {}),
    })
    for (const { seq, at } of matches) {
      const abandoned = !onLineage(seq)
      if (abandoned && !everyBranch) continue
      const covered = abandoned || !isInView(seq)
      if (!abandoned && query.scope === (covered ? 'view' : 'covered')) continue
      if (page.length === query.limit) {
        next = at
        break
      }
      page.push({ seq, covered, abandoned })
    }
    const snippets = this.searchIndex.snippets(
      expression,
      page.map((hit) => hit.seq),
    )
    return { hits: page.map((hit) => ({ ...hit, snippet: snippets.get(hit.seq) ?? '' })), next }
  }

  /** A page of the log, COMPACTION events included, from `after` on. */
  logPage(record: SessionRecord, after: number, limit: number): Iterable<string> {
    return logPageJson(this.log, record.version, after, limit)
  }

  /** The view: events with the view's counters, or OpenAI chat messages (pairing-safe, pending calls open). */
  viewOf(record: SessionRecord, format: ViewFormat): Iterable<string> {
    const columns = this.view.snapshot(record)
    if (format === 'events') {
      const { viewTokens: tokens, turns } = record.stats
      return viewJson(this.view, allSeqs(columns), { tokens, turns, version: record.version })
    }
    const latest = record.stats.latestSystem
    const system = latest ? (this.view.event(latest.seq)?.message.content ?? '') : null
    return jsonObject<OpenAIViewJson>({ messages: jsonArray(openAIViewMessages(this.view, columns, system)) })
  }

  /** A page of the branches rewinds abandoned, newest first, before the seq `before` (exclusive). */
  branches(before: number, limit: number): Iterable<string> {
    return this.branchesOf.page(before, limit)
  }

  /** A page of the session's compactions, newest first, before the seq `before` (exclusive). */
  compactions(before: number, limit: number): Iterable<string> {
    return compactionsJson(this.log, before, limit)
  }

  compaction(result: CompactionResult): Iterable<string> {
    return compactionJson(this.view, result)
  }

  turn(result: TurnResult): Iterable<string> {
    return turnResultJson(this.view, result)
  }

  /** What the session holds and what compaction did (`GET /context`): counted, nothing written. */
  facts(record: SessionRecord): SessionFacts {
    return sessionFacts(this.log, this.view, record)
  }
}
