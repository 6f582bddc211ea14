import { ServiceError } from '../contract/errors'
import { SIZE_LIMITS } from '../contract/limits'
import { type MediaRendering, withBytes } from '../contract/openai-messages'
import type {
  CompactionResultJson,
  CompactionsPageJson,
  ExportFormat,
  LogPageJson,
  OpenAIViewJson,
  TurnResponseJson,
  ViewJson,
} from '../contract/schemas'
import type { TurnResult } from '../contract/turn-result'
import {
  allSeqs,
  type CompactionResult,
  lineageRuns,
  type MessageEvent,
  onLineage,
  searchTextOf,
  textOf,
  utf8Length,
} from '../core'
import { jsonArray, jsonLater, jsonObject } from '../json-stream'
import type { SessionBlobs } from '../store/log/blobs'
import type { SessionBranches } from '../store/log/branches'
import { eventJson, NOTHING_PINNED, type PinnedSeqs, pinnedEach, withPin, withPinned } from '../store/log/event-json'
import type { SessionLog } from '../store/log/log'
import type { SessionPins } from '../store/log/pins'
import type { PreparedSummaries } from '../store/log/prepared'
import type { SessionRecord } from '../store/log/session-row'
import type { SessionUndos } from '../store/log/undos'
import type { ViewCache } from '../store/log/view-cache'
import { type LineageSearch, type SearchQuery, searchOf } from '../store/search/lineage-search'
import type { SessionStorage } from '../store/session-storage'
import { anthropicExport, jsonlExport, markdownExport } from './export'
import { type SessionFacts, sessionFacts } from './facts'
import { openAIViewMessages } from './openai-view'
import { searchPageJson } from './search-json'
import { type TranscriptPage, type TranscriptQuery, transcriptPage } from './transcript'

/**
 * The session object's large answers as JSON text generated piece by piece from storage (see
 * `../json-stream`): what they hold is fixed when they are made (a version, a snapshot of view
 * entries), the bodies are read as the reader gets to them. Events never change once written,
 * so a body read late is the body as of the snapshot.
 */

const json = (value: unknown) => JSON.stringify(value)

/**
 * A page of the log after `after`, as of `version`: at most `limit` events, ending after the
 * event that brings it to `SIZE_LIMITS.eventsPage.bytes` of JSON (so a page of large events holds
 * fewer); `nextAfter` is the last seq sent while the log goes on, null at its end.
 */
function logPageJson(log: SessionLog, version: number, after: number, limit: number, pinned: PinnedSeqs): Generator<string> {
  let count = 0
  let last = after
  function* events(): Generator<string> {
    let bytes = 0
    for (const event of log.jsonRange(after + 1, Math.min(version, after + limit))) {
      yield withPin(event.json, pinned.has(event.seq))
      count += 1
      bytes += utf8Length(event.json)
      last = event.seq
      if (count >= limit || bytes >= SIZE_LIMITS.eventsPage.bytes) break
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
  pinned: PinnedSeqs,
): Generator<string> {
  yield* jsonObject<ViewJson>({
    events: jsonArray(pinnedEach(view.shownJsonOf(seqs), seqs, pinned)),
    tokens: json(counters.tokens),
    turns: json(counters.turns),
    version: json(counters.version),
  })
}

/** A CompactionResult, its events written from storage. */
function compactionJson(view: ViewCache, result: CompactionResult, pins: PinnedSeqs): Generator<string> {
  const events = (seqs: Int32Array, keep?: number) => jsonArray(pinnedEach(view.jsonOf(seqs, keep), seqs, pins))
  // What the pass kept is shown as the view shows it (cleared messages cleared); what it covered, as stored.
  const shown = (seqs: Int32Array) => jsonArray(pinnedEach(view.shownJsonOf(seqs), seqs, pins))
  return jsonObject<CompactionResultJson>({
    unchanged: json(result.unchanged),
    reason: json(result.reason),
    // Covered events left the view: nothing to keep them in memory for.
    covered: events(result.covered, 0),
    pinned: shown(result.pinned),
    summary: jsonArray(result.summary.map((event) => eventJson(event, pins))),
    preserved: shown(result.preserved),
    tokensEstimatedSaved: json(result.tokensEstimatedSaved),
    boundary: result.boundary === null ? 'null' : eventJson(result.boundary, pins),
    version: json(result.version),
    ...(result.dryRun ? { dryRun: 'true' } : {}),
  })
}

/** A turn's result, its compaction results written from storage. */
function turnResultJson(view: ViewCache, result: TurnResult, pins: PinnedSeqs): Generator<string> {
  const { compaction, context } = result
  return jsonObject<TurnResponseJson>({
    reply: eventJson(result.reply, pins),
    status: json(result.status),
    toolCalls: json(result.toolCalls),
    events: jsonArray(result.events.map((event) => eventJson(event, pins))),
    compaction: compaction === null || 'error' in compaction ? json(compaction) : compactionJson(view, compaction, pins),
    compactionScheduled: json(result.compactionScheduled ?? false),
    usage: json(result.usage),
    context:
      context === null
        ? 'null'
        : jsonObject<NonNullable<TurnResponseJson['context']>>({
            promptTokens: json(context.promptTokens),
            budget: json(context.budget),
            compactions: jsonArray(context.compactions.map((pass) => compactionJson(view, pass, pins))),
            retried: json(context.retried),
            calibration: json(context.calibration),
          }),
  })
}

/**
 * `GET /compactions`: the boundaries before `before`, newest first, each with the summary events
 * written with it and what it recorded (`tokensBefore` / `tokensAfter` null when it predates them).
 */
function* compactionsJson(
  log: SessionLog,
  before: number,
  limit: number,
  undone: (passSeq: number) => boolean,
): Generator<string> {
  const found = log.boundariesBefore(before, limit + 1)
  const page = found.slice(0, limit)
  yield* jsonObject<CompactionsPageJson>({
    compactions: jsonArray(
      page.map((event) => {
        const boundary = event.type === 'COMPACTION' ? event.boundary : null
        const summary =
          boundary && boundary.summary.length > 0 ? log.range(event.seq + 1, event.seq + boundary.summary.length) : []
        // Neither a boundary nor a summary event is ever pinned.
        return json({
          boundary: withPinned(event, NOTHING_PINNED),
          summary: summary.map((part) => withPinned(part, NOTHING_PINNED)),
          coveredEventCount: boundary?.coveredEventCount ?? 0,
          tokensEstimatedSaved: boundary?.tokensEstimatedSaved ?? 0,
          tokensBefore: boundary?.tokensBefore ?? null,
          tokensAfter: boundary?.tokensAfter ?? null,
          undone: boundary !== null && boundary.undoes === undefined && undone(event.seq),
        })
      }),
    ),
    nextBefore: json(found.length > limit ? page.at(-1)!.seq : null),
  })
}

/** A hit of a search across sessions, as its session answers it (the Event as JSON). */
export interface SessionHit {
  seq: number
  event: string
  covered: boolean
  snippet: string
  text?: string
}

/** How `GET /view` writes the view: as events, or as OpenAI chat messages. */
export type ViewFormat = 'events' | 'openai'

/** One session's large answers, as JSON text made from its log and view while the reader takes it. */
export class SessionReads {
  private readonly log: SessionLog
  private readonly view: ViewCache
  private readonly lineage: LineageSearch
  private readonly branchesOf: SessionBranches
  private readonly undos: SessionUndos
  private readonly pins: SessionPins
  private readonly prepared: PreparedSummaries
  private readonly blobs: SessionBlobs

  constructor(storage: SessionStorage) {
    ;({
      log: this.log,
      view: this.view,
      branches: this.branchesOf,
      undos: this.undos,
      pins: this.pins,
      prepared: this.prepared,
    } = storage.parts)
    this.lineage = storage.lineage
    this.blobs = storage.blobs
  }

  /**
   * A page of search hits (`GET /search`, see {@link searchPageJson}). A query with no word to
   * search for is a 400 at once, before the session is looked up: a bad request is a 400 whatever the session.
   */
  search(query: SearchQuery): (record: SessionRecord) => Iterable<string> {
    const expression = searchOf(query.q)
    if (expression === null) throw new ServiceError('invalid_request', 'query.q: has no word to search for (letters or digits)')
    return (record) => {
      const { hits, next } = this.lineage.page(record, expression, query)
      return searchPageJson(this.log, hits, next, this.pins.seqs())
    }
  }

  /**
   * This session's hits of a search across sessions (`GET /v1/search`, recall): each of `seqs` on
   * the lineage as its Event's JSON, whether it is covered, its snippet and, when asked, its text.
   */
  hitsOf(record: SessionRecord, q: string, seqs: readonly number[], withText: boolean): SessionHit[] {
    const pinned = this.pins.seqs()
    return this.lineage.found(record, q, seqs).map((hit) => {
      const event = withPin(this.log.json(hit.row), pinned.has(hit.seq))
      const text = withText ? { text: searchTextOf((JSON.parse(event) as MessageEvent).message) } : {}
      return { seq: hit.seq, event, covered: hit.covered, snippet: hit.snippet, ...text }
    })
  }

  /** The events after the seq `after` as the API shows them, oldest first, until they hold `bytes` of JSON: what a live subscriber catches up with. */
  *eventsAfter(record: SessionRecord, after: number, bytes: number): Generator<{ seq: number; json: string }> {
    const pinned = this.pins.seqs()
    let sent = 0
    for (const event of this.log.jsonRange(after + 1, record.version)) {
      if (sent >= bytes) return
      yield { seq: event.seq, json: withPin(event.json, pinned.has(event.seq)) }
      sent += event.json.length
    }
  }

  /** A page of the log, COMPACTION events included, from `after` on. */
  logPage(record: SessionRecord, after: number, limit: number): Iterable<string> {
    return logPageJson(this.log, record.version, after, limit, this.pins.seqs())
  }

  /** A page of the lineage, each message marked covered or cleared (see {@link transcriptPage}). */
  transcript(record: SessionRecord, query: TranscriptQuery): TranscriptPage {
    return transcriptPage(record, this.log, this.view, query)
  }

  /** The view: events with the view's counters, or OpenAI chat messages (pairing-safe, pending calls open). */
  viewOf(record: SessionRecord, format: ViewFormat): Iterable<string> {
    const columns = this.view.snapshot(record)
    if (format === 'events') {
      const { viewTokens: tokens, turns } = record.stats
      return viewJson(this.view, allSeqs(columns), { tokens, turns, version: record.version }, this.pins.seqs())
    }
    const system = this.latestSystem(record)
    return jsonObject<OpenAIViewJson>({ messages: jsonArray(openAIViewMessages(this.view, columns, system, this.media)) })
  }

  /** An export of the session (see `./export`): `jsonl`, the view as `openai` or `anthropic` messages, or the lineage as `markdown`. */
  exportOf(record: SessionRecord, format: ExportFormat): Iterable<string> {
    if (format === 'jsonl') return jsonlExport(record, this.log, this.pins.seqs(), this.blobs)
    if (format === 'markdown') return markdownExport(record, this.log)
    if (format === 'openai') return this.viewOf(record, 'openai')
    const messages = openAIViewMessages(this.view, this.view.snapshot(record), null, this.media)
    return anthropicExport(messages, this.latestSystem(record))
  }

  /** The text of the view's latest system message (null: none). */
  private latestSystem(record: SessionRecord): string | null {
    const latest = record.stats.latestSystem
    return latest ? textOf(this.view.event(latest.seq)?.message.content ?? '') : null
  }

  /** Images and documents as a view or an export writes them: their bytes, as data URLs. */
  private get media(): MediaRendering {
    return withBytes((ref) => this.blobs.read(ref))
  }

  /** A page of the branches rewinds abandoned, newest first, before the seq `before` (exclusive). */
  branches(record: SessionRecord, before: number, limit: number): Iterable<string> {
    return this.branchesOf.page(record.version, before, limit)
  }

  /** A page of the session's compactions, newest first, before the seq `before` (exclusive), each pass said undone or not. */
  compactions(record: SessionRecord, before: number, limit: number): Iterable<string> {
    const isOnLineage = onLineage(lineageRuns(record.version, this.log.rewinds.at))
    return compactionsJson(this.log, before, limit, (seq) => this.undos.undone(seq, isOnLineage))
  }

  compaction(result: CompactionResult): Iterable<string> {
    return compactionJson(this.view, result, this.pins.seqs())
  }

  turn(result: TurnResult): Iterable<string> {
    return turnResultJson(this.view, result, this.pins.seqs())
  }

  /** What the session holds and what compaction did (`GET /context`): counted, nothing written. */
  facts(record: SessionRecord): SessionFacts {
    return sessionFacts(
      this.log,
      this.view,
      record,
      {
        pinned: this.pins.pinned(),
        ofView: this.pins.ofView(record.boundarySeq),
      },
      this.prepared.read(),
    )
  }
}
