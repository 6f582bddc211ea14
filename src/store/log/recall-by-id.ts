import { allSeqs, EventText, type MessageEvent, type RecallHit, textOf, type ViewColumns } from '../../core'
import type { LogIndexes } from './indexes'
import type { SessionLog } from './log'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

/** How many events after a call its result is looked for (a client may send other messages between). */
const RESULT_LOOKAHEAD = 64

/** A message as recall answers it: whole, as one line of text. */
const recallHitOf = (event: MessageEvent): RecallHit => ({
  id: event.id,
  seq: event.seq,
  role: event.message.role,
  text: EventText.of(event.message),
})

/**
 * A message by its id, or a tool call's result by the call's id (else the call), whole: cleared,
 * covered or in view, never abandoned. A call's result is looked for a few events after its call
 * (tool ids keep where they were written); for an id written before they did, in the view (where
 * a cleared result is). Null when there is none on the lineage.
 */
export function recallById(
  parts: { log: SessionLog; indexes: LogIndexes; view: ViewCache },
  record: SessionRecord,
  viewOf: () => ViewColumns,
  id: string,
): RecallHit | null {
  const { log, indexes } = parts
  const onLineage = record.rewinds === 0 ? () => true : log.rewinds.onLineage
  const place = log.placeOf(id)
  if (place) {
    const [event] = log.range(place.seq, place.seq)
    return event?.type === 'MESSAGE' && onLineage(event.seq) ? recallHitOf(event) : null
  }
  const from = indexes.toolIds.seqOf(id)
  const candidates =
    from === null
      ? [...parts.view.eventsOf(allSeqs(viewOf()))]
      : log.range(from, Math.min(from + RESULT_LOOKAHEAD, record.version))
  let call: MessageEvent | null = null
  for (const event of candidates) {
    if (event.type !== 'MESSAGE' || !onLineage(event.seq)) continue
    const response = event.message.toolResponses?.find((item) => item.id === id)
    if (response) return { id: event.id, seq: event.seq, role: 'tool', text: `${response.name} → ${textOf(response.data)}` }
    if (!call && event.message.toolCalls?.some((item) => item.id === id)) call = event
  }
  return call ? recallHitOf(call) : null
}
