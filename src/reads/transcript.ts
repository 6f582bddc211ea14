import { ServiceError } from '../contract/errors'
import { allSeqs, lineageRuns, lineageWindow, onLineage, type SessionEvent, type WindowPosition } from '../core'
import type { SessionLog } from '../store/log/log'
import type { SessionRecord } from '../store/log/session-row'
import type { ViewCache } from '../store/log/view-cache'
import { markdownOf } from './export'

/** What a transcript page is asked for: the newest events, or those around, before or after one. */
export interface TranscriptQuery {
  eventId?: string
  position: WindowPosition
  limit: number
}

/** One event of a transcript page, with what the model is shown of it now. */
export interface TranscriptEntry {
  event: SessionEvent
  /** A message the view no longer holds (a compaction covered it: a summary stands for it). */
  covered: boolean
  /** A tool message the view shows cleared: its tokens as shown, the calls whose results went. */
  cleared: { callIds: string[]; tokens: number } | null
}

/** A page of the lineage, oldest first, and the events to page on from (null at either end). */
export interface TranscriptPage {
  sessionId: string
  version: number
  events: TranscriptEntry[]
  olderFrom: string | null
  newerFrom: string | null
}

/**
 * A page of a session's lineage — what the conversation is now, with what compactions covered and
 * where it branched — each message marked covered or cleared as the view stands (MCP's
 * `read_session`). Reads the page's events, the view's seqs (cached) and the rewinds between the
 * page and the tip: never the whole log.
 */
export function transcriptPage(record: SessionRecord, log: SessionLog, view: ViewCache, query: TranscriptQuery): TranscriptPage {
  let anchor: number | null = null
  if (query.eventId !== undefined) {
    const place = log.placeOf(query.eventId)
    if (!place) throw new ServiceError('not_found', `eventId: no event ${query.eventId} in this session`)
    if (!onLineage(lineageRuns(record.version, log.rewinds.at))(place.seq))
      throw new ServiceError('invalid_request', `eventId: ${query.eventId} is on a branch a rewind abandoned, not on the lineage`)
    anchor = place.seq
  }
  const seqs = lineageWindow(anchor, record.version, query.position, query.limit, log.rewinds.at)
  const inView = new Set(allSeqs(view.snapshot(record)))
  const { cleared } = view.clearedOf(record)
  const clearedById = new Map(cleared.map((entry) => [entry.eventId, entry]))
  const events: TranscriptEntry[] = []
  // The page's seqs are runs of consecutive seqs: one range read each.
  for (let i = 0; i < seqs.length; ) {
    let j = i
    while (j + 1 < seqs.length && seqs[j + 1] === seqs[j]! + 1) j++
    for (const event of log.eventRange(seqs[i]!, seqs[j]!)) {
      const clearing = clearedById.get(event.id)
      events.push({
        event,
        covered: event.type === 'MESSAGE' && !inView.has(event.seq),
        cleared: clearing ? { callIds: clearing.callIds, tokens: clearing.tokens } : null,
      })
    }
    i = j + 1
  }
  const first = seqs[0]
  const last = seqs.at(-1)
  const hasOlder = first !== undefined && lineageWindow(first, record.version, 'before', 1, log.rewinds.at).length > 0
  const hasNewer = last !== undefined && last < record.version
  return {
    sessionId: record.id,
    version: record.version,
    events,
    olderFrom: hasOlder ? events[0]!.event.id : null,
    newerFrom: hasNewer ? events.at(-1)!.event.id : null,
  }
}

/** A transcript page as Markdown: each event as the `markdown` export writes it, marked covered or cleared. */
export function transcriptMarkdown(page: TranscriptPage): string {
  const lines = [`# Session ${page.sessionId}: events ${page.events.length > 0 ? 'on its lineage' : 'none here'}\n`]
  for (const { event, covered, cleared } of page.events) {
    const marks = [
      `event ${event.id}`,
      ...(covered ? ['covered by a compaction: the model sees its summary'] : []),
      ...(cleared ? [`cleared in the view (${cleared.callIds.join(', ')}): recall_history with its id returns it`] : []),
    ]
    lines.push(`${markdownOf(event).trimEnd()}\n\n*(${marks.join('; ')})*\n`)
  }
  if (page.olderFrom) lines.push(`Older events: position "before", eventId "${page.olderFrom}".`)
  if (page.newerFrom) lines.push(`Newer events: position "after", eventId "${page.newerFrom}".`)
  return lines.join('\n')
}
