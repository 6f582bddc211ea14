import type { ClearedEntry, Content, Message, MessageEvent } from '../events'
import { newMessageEvent } from '../events/new-event'
import { mediaOf, renderText } from '../parts'
import { partTokens } from '../parts/tokens'
import type { TokenEstimator } from '../tokens'
import { RECALL_TOOL } from '../tool-pairs'

/**
 * Clearing: old tool results (and, asked, the calls' arguments) replaced in the view by a notice
 * naming the call, its tool and its size and how to get it back — every message kept, every call
 * still answered, the log unchanged. A clearing pass writes a COMPACTION whose boundary lists what
 * it cleared (`cleared`); the view applies the list on every read, so the same bytes go out on
 * every later request.
 */

/** A strategy's `clearToolResults`: which tool results a clearing pass clears. */
export interface ClearToolResults {
  /** The newest calls whose results stay (default 3). */
  keep?: number
  /** A clearing that would save fewer tokens does not happen (default 0). */
  clearAtLeast?: number
  /** Tools whose results are never cleared. */
  excludeTools?: string[]
  /** Clear the calls' arguments too (default false): all of them (true), or those of the tools named. */
  clearInputs?: boolean | string[]
}

/** What the fit check clears with when no strategy says (a deployment's last resort before a 413). */
export const DEFAULT_CLEARING: Required<ClearToolResults> = { keep: 3, clearAtLeast: 0, excludeTools: [], clearInputs: false }

/** Whether a clearing clears the arguments of a call to this tool. */
const clearsInputOf = (clearInputs: ClearToolResults['clearInputs'], tool: string): boolean =>
  Array.isArray(clearInputs) ? clearInputs.includes(tool) : clearInputs === true

/** A count with its thousands grouped as `toLocaleString('en-US')` writes it (8,214), without the locale machinery's cost. */
const grouped = (count: number) => String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

/**
 * The notice a cleared tool result is replaced by (`kind: 'result'`) or a cleared call's
 * arguments are followed by (`kind: 'input'`): the call, its tool, its size, and how to get it back.
 *
 * @example
 * clearedNotice('result', 'call_7', 'read_file', 8214)
 * // '[tool result cleared: call call_7 (read_file), 8,214 tokens — recall_history with {"id": "call_7"} returns it]'
 */
export const clearedNotice = (kind: 'result' | 'input', callId: string, tool: string, tokens: number): string =>
  `[tool ${kind} cleared: call ${callId} (${tool}), ${grouped(tokens)} tokens — ${RECALL_TOOL} with ${JSON.stringify({ id: callId }).replace(':', ': ')} returns it]`

/** A cleared message: its named calls' results (a tool message) or arguments (an assistant message) replaced. */
export function clearedMessage(message: Message, entry: ClearedEntry): Message {
  const at = new Map(entry.callIds.map((id, i) => [id, entry.callTokens[i] ?? 0]))
  if (!entry.inputs) {
    const toolResponses = message.toolResponses?.map((response) =>
      at.has(response.id)
        ? { ...response, data: clearedNotice('result', response.id, response.name, at.get(response.id)!) }
        : response,
    )
    return toolResponses ? { ...message, toolResponses } : message
  }
  const calls = message.toolCalls ?? []
  const text = renderText(message.content, () => '')
  // A message cleared already (a view's, cleared again by a newer boundary) keeps its notices once.
  const notices = calls
    .filter((call) => at.has(call.id))
    .map((call) => clearedNotice('input', call.id, call.name, at.get(call.id)!))
    .filter((notice) => !text.includes(notice))
  const content: Content | null =
    typeof message.content === 'string' || message.content === null
      ? [text, ...notices].filter((line) => line !== '').join('\n')
      : [...message.content, ...notices.map((notice) => ({ type: 'text' as const, text: notice }))]
  return {
    ...message,
    content,
    toolCalls: calls.map((call) => (at.has(call.id) ? { ...call, arguments: '{}' } : call)),
  }
}

/** A message event as the view shows it under a clearing: its message cleared, its tokens the cleared ones. */
export const clearedEvent = <E extends MessageEvent>(event: E, entry: ClearedEntry): E => ({
  ...event,
  tokens: entry.tokens,
  message: clearedMessage(event.message, entry),
})

/** A view entry (no body) under a clearing: its tokens the cleared ones. */
export const clearedEntry = <E extends { tokens: number }>(entry: E, cleared: ClearedEntry): E => ({
  ...entry,
  tokens: cleared.tokens,
})

/** The cleared entries of a boundary, by event id. */
export const clearedById = (cleared: readonly ClearedEntry[] | undefined): Map<string, ClearedEntry> =>
  new Map((cleared ?? []).map((entry) => [entry.eventId, entry]))

/** The tokens of what one tool call carries: its result's data, or its arguments. */
const dataTokens = (data: Content, estimator: TokenEstimator) =>
  estimator.count(renderText(data, () => '')) +
  mediaOf({ role: 'tool', content: data }).reduce((sum, part) => sum + partTokens(part), 0)

/**
 * What one call's result weighs, as its notice says: a message that is that result alone (the
 * usual tool message) weighs its own estimate less its frame's — its data is not counted a second
 * time (a clearing in a long loop would count every aged 8 KB result again); else its data counted.
 */
function resultTokens(event: { tokens: number; message: Message }, id: string, estimator: TokenEstimator): number {
  const { message } = event
  const responses = message.toolResponses!
  const response = responses.find((r) => r.id === id)!
  if (responses.length > 1 || (message.content?.length ?? 0) > 0 || (message.toolCalls?.length ?? 0) > 0)
    return dataTokens(response.data, estimator)
  const frame = { ...message, toolResponses: [{ ...response, data: '' }] }
  return Math.max(0, event.tokens - newMessageEvent({ id: '', timestamp: '', message: frame }, estimator).tokens)
}

/** What a clearing pass would do: the view's entries after it, and the tokens it saves. */
export interface ClearingPlan {
  /** Every entry of the view after the pass (those already cleared included), in view order. */
  cleared: ClearedEntry[]
  /** The events it clears now (or clears further), each with its tokens after. */
  changed: Map<string, number>
  /** View tokens before minus after. */
  saved: number
}

/**
 * Plans a clearing over a view's tool messages (as stored — never a cleared rendering — in view
 * order; with `clearInputs`, its assistant messages too). Those already cleared (in `current`)
 * may be left out: they are older than any the clearing keeps, so what it keeps is counted from
 * the newest results all the same. Every result older than the newest `keep` is cleared, excluded
 * tools' aside, and with `clearInputs` those calls' arguments too (all, or the named tools'). Null when it would clear
 * nothing, or fewer tokens than `clearAtLeast`.
 *
 * @example
 * const plan = planClearing(toolEvents, clearedById(boundary.cleared), { keep: 3 }, estimator)
 */
export function planClearing(
  view: readonly { id: string; tokens: number; message: Message }[],
  current: ReadonlyMap<string, ClearedEntry>,
  options: ClearToolResults,
  estimator: TokenEstimator,
): ClearingPlan | null {
  const { keep, clearAtLeast, excludeTools, clearInputs } = { ...DEFAULT_CLEARING, ...options }
  const excluded = new Set(excludeTools)
  // Results in view order: the newest `keep` stay.
  const results: { id: string; name: string }[] = []
  for (const event of view) for (const response of event.message.toolResponses ?? []) results.push(response)
  const clearing = new Set(
    results
      .slice(0, Math.max(0, results.length - keep))
      .filter((result) => !excluded.has(result.name))
      .map((result) => result.id),
  )
  if (clearing.size === 0) return null

  const entries: ClearedEntry[] = []
  const changed = new Map<string, number>()
  let saved = 0
  for (const event of view) {
    const was = current.get(event.id)
    const message = event.message
    const responses = message.toolResponses ?? []
    const inputs = responses.length === 0
    if (inputs && !clearInputs) continue
    const items = inputs ? (message.toolCalls ?? []).filter((call) => clearsInputOf(clearInputs, call.name)) : responses
    const ids = items.map((item) => item.id).filter((id) => clearing.has(id))
    const all = [...new Set([...(was?.callIds ?? []), ...ids])]
    if (all.length === (was?.callIds.length ?? 0)) continue
    const callTokens = all.map((id) => {
      const known = was?.callIds.indexOf(id) ?? -1
      if (known >= 0) return was!.callTokens[known]!
      if (inputs) return estimator.count(message.toolCalls!.find((call) => call.id === id)!.arguments)
      return was
        ? dataTokens(responses.find((response) => response.id === id)!.data, estimator)
        : resultTokens(event, id, estimator)
    })
    const draft: ClearedEntry = { eventId: event.id, callIds: all, inputs, tokens: 0, callTokens }
    const tokens = newMessageEvent({ id: event.id, message: clearedMessage(message, draft), timestamp: '' }, estimator).tokens
    entries.push({ ...draft, tokens })
    changed.set(event.id, tokens)
    saved += (was?.tokens ?? event.tokens) - tokens
  }
  if (changed.size === 0 || saved <= 0 || saved < clearAtLeast) return null
  const fresh = new Set(entries.map((entry) => entry.eventId))
  return { cleared: [...[...current.values()].filter((entry) => !fresh.has(entry.eventId)), ...entries], changed, saved }
}

/**
 * A view's events as the model is shown them: each one a clearing names, cleared.
 *
 * @example
 * const shown = viewEvents(await store.readEvents(seqs), cleared)
 */
export const viewEvents = <E extends MessageEvent>(events: readonly E[], cleared: ReadonlyMap<string, ClearedEntry>): E[] =>
  cleared.size === 0
    ? [...events]
    : events.map((event) => {
        const entry = cleared.get(event.id)
        return entry ? shownCleared(event, entry) : event
      })

/**
 * Each event shown cleared, by the event (a store hands out the same object while it keeps it),
 * with the clearing it was shown under: a long agent loop's cleared results are cleared once, not
 * on every step's prompt.
 */
const shownUnder = new WeakMap<MessageEvent, { entry: ClearedEntry; shown: MessageEvent }>()

/** {@link clearedEvent}, the same object again while the event and its clearing are. */
function shownCleared<E extends MessageEvent>(event: E, entry: ClearedEntry): E {
  const known = shownUnder.get(event)
  if (known && sameClearing(known.entry, entry)) return known.shown as E
  const shown = clearedEvent(event, entry)
  shownUnder.set(event, { entry, shown })
  return shown
}

/** Whether two clearings of one message show it alike (each boundary lists a clearing again, as a new object). */
export const sameClearing = (a: ClearedEntry, b: ClearedEntry): boolean =>
  a === b ||
  (a.tokens === b.tokens && a.inputs === b.inputs && sameItems(a.callIds, b.callIds) && sameItems(a.callTokens, b.callTokens))

const sameItems = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((item, i) => item === b[i])
