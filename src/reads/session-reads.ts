import { ServiceError } from '../contract/errors'
import { type MediaRendering, withBytes } from '../contract/openai-messages'
import type { ExportFormat, OpenAIViewJson } from '../contract/schemas'
import type { TurnResult } from '../contract/turn-result'
import { allSeqs, type CompactionResult, lineageRuns, type MessageEvent, onLineage, searchTextOf, textOf } from '../core'
import { jsonArray, jsonObject } from '../json-stream'
import type { SessionBlobs } from '../store/log/blobs'
import type { SessionBranches } from '../store/log/branches'
import { withPin } from '../store/log/event-json'
import type { SessionLog } from '../store/log/log'
import type { SessionPins } from '../store/log/pins'
import type { PreparedSummaries } from '../store/log/prepared'
import type { SessionRecord } from '../store/log/session-row'
import type { SessionUndos } from '../store/log/undos'
import type { ViewCache } from '../store/log/view-cache'
import { type LineageSearch, type SearchQuery, searchOf } from '../store/search/lineage-search'
import type { SessionStorage } from '../store/session-storage'
import { compactionJson, compactionsJson, logPageJson, turnResultJson, viewJson } from './answers-json'
import { anthropicExport, jsonlExport, markdownExport } from './export'
import { type SessionFacts, sessionFacts } from './facts'
import { openAIViewMessages } from './openai-view'
import { searchPageJson } from './search-json'
import { type TranscriptPage, type TranscriptQuery, transcriptPage } from './transcript'

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
