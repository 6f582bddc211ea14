import { type MediaRendering, openAIContent, openAIMessagesOf } from '../contract/openai-messages'
import { NO_RESULT, newestTurnStartOf, ResultPlacement, type ViewColumns } from '../core'
import type { ViewCache } from '../store/log/view-cache'

const json = (value: unknown) => JSON.stringify(value)

/**
 * `GET /view?format=openai`'s messages, one JSON text each, rendered pairing-safe as the core's
 * `pairToolResults` does with the newest turn's pending calls left open — without holding the
 * view: a first walk reads only the tool events, for their response ids; the second writes the
 * other events in order, each call followed by its result (its event read again when placed) or
 * the placeholder. A view with no tool event costs nothing more than one walk. Images and documents
 * go as `media` renders them (an export's and the view's: their bytes, as data URLs).
 */
export function* openAIViewMessages(
  view: ViewCache,
  columns: ViewColumns,
  system: string | null,
  media: MediaRendering,
): Generator<string> {
  if (system !== null) yield json({ role: 'system', content: system })
  const toolAt: number[] = []
  const otherAt: number[] = []
  for (let p = 0; p < columns.length; p++) (columns.role(p) === 'tool' ? toolAt : otherAt).push(p)
  const seqsOf = (positions: readonly number[]) => Int32Array.from(positions, (p) => columns.seq(p))

  const responses: { at: number; index: number; id: string }[] = []
  let i = 0
  for (const event of view.shownEventsOf(seqsOf(toolAt))) {
    const at = toolAt[i++]!
    for (const [index, response] of (event.message.toolResponses ?? []).entries()) responses.push({ at, index, id: response.id })
  }
  const placement = new ResultPlacement(responses, { newestStart: newestTurnStartOf(columns), open: true })

  i = 0
  for (const event of view.shownEventsOf(seqsOf(otherAt))) {
    const at = otherAt[i++]!
    // The system prompt is never repeated: it is given first, or not at all (an inline one is in place).
    for (const message of openAIMessagesOf(event, { media })) yield json(message)
    const placed = placement.after(at, event.message.toolCalls ?? [])
    if (placed.length === 0) continue
    const sources = [...new Set(placed.flatMap((p) => (p.from ? [p.from.at] : [])))].sort((a, b) => a - b)
    const stored = new Map<number, (typeof event)['message']>()
    let s = 0
    for (const source of view.shownEventsOf(seqsOf(sources))) stored.set(sources[s++]!, source.message)
    for (const { id, from } of placed) {
      const data = from ? stored.get(from.at)!.toolResponses![from.index]!.data : NO_RESULT
      yield json({ role: 'tool', tool_call_id: id, content: openAIContent(data, media) })
    }
  }
}
