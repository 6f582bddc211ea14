import { sessionNotFound } from '../contract/errors'
import type { StoredStep } from '../contract/turn-result'
import { lineageRuns, type MessageEvent, onLineage } from '../core'
import type { SessionParts } from '../store/log/open-session'
import type { SessionRecord } from '../store/log/session-row'
import { lineagePage } from './lineage-page'

/**
 * What the doors read of a session by id, beside a turn: the events an item reference names, a
 * stored reply and its step (a stored response), the lineage in pages (a conversation's items).
 */
export class DoorReads {
  constructor(
    private readonly parts: SessionParts,
    private readonly find: () => Promise<SessionRecord | null>,
  ) {}

  /** The message events with these ids, in no order (ids the log does not hold, or of boundaries, left out). */
  async messagesByIds(ids: readonly string[]): Promise<MessageEvent[]> {
    if (!(await this.find())) return []
    return [...this.parts.log.byIds(ids).values()].filter((event): event is MessageEvent => event.type === 'MESSAGE')
  }

  /**
   * A page of the lineage's shown messages (see {@link lineagePage}), starting at the event
   * `fromId` (included), with the session's version as read; null when that event is not on the
   * lineage, 404 when there is no session.
   */
  async lineageMessages(query: { order: 'asc' | 'desc'; fromId?: string; limit: number }) {
    const record = await this.find()
    if (!record) throw sessionNotFound()
    const { log } = this.parts
    const fromSeq = query.fromId === undefined ? undefined : log.placeOf(query.fromId)?.seq
    // An event a rewind took off the lineage starts no page of it (its branch's lineage is another).
    if (fromSeq !== undefined && !onLineage(lineageRuns(record.version, log.rewinds.at))(fromSeq)) return null
    const page = lineagePage(log, { order: query.order, limit: query.limit, ...(fromSeq ? { fromSeq } : {}) })
    return query.fromId !== undefined && page.events[0]?.id !== query.fromId ? null : { ...page, version: record.version }
  }

  /** The turn step whose reply is this event (an assistant message of a step), or null. */
  async stepOfReply(replyId: string): Promise<StoredStep | null> {
    if (!(await this.find())) return null
    const place = this.parts.log.placeOf(replyId)
    if (place?.type !== 'MESSAGE') return null
    const step = this.parts.steps.storedReply(place.seq)
    return step.reply.message.role === 'assistant' ? step : null
  }
}
