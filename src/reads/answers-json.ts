import { SIZE_LIMITS } from '../contract/limits'
import type { CompactionResultJson, CompactionsPageJson, LogPageJson, TurnResponseJson, ViewJson } from '../contract/schemas'
import type { TurnResult } from '../contract/turn-result'
import { type CompactionResult, utf8Length } from '../core'
import { jsonArray, jsonLater, jsonObject } from '../json-stream'
import { eventJson, NOTHING_PINNED, type PinnedSeqs, pinnedEach, withPin, withPinned } from '../store/log/event-json'
import type { SessionLog } from '../store/log/log'
import type { ViewCache } from '../store/log/view-cache'

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
export function logPageJson(
  log: SessionLog,
  version: number,
  after: number,
  limit: number,
  pinned: PinnedSeqs,
): Generator<string> {
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
export function* viewJson(
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
export function compactionJson(view: ViewCache, result: CompactionResult, pins: PinnedSeqs): Generator<string> {
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
export function turnResultJson(view: ViewCache, result: TurnResult, pins: PinnedSeqs): Generator<string> {
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
export function* compactionsJson(
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
