import { isTurnStart, type Message } from '../events'

/** What the pairing reads of an event: its message, and whether compaction wrote it. */
type Paired = { message: Message; synthetic: boolean }

/**
 * Tool calls and their results, as the OpenAI wire needs them: every assistant tool call followed
 * by one tool message per call id, and no tool message without its call. A log appended through
 * `/events` may hold anything — calls never answered, results before or without their call — so
 * a prompt is rendered pairing-safe; the log itself is never changed.
 */

/** The service's own tool (the model looks up what compaction hid); never the client's to answer. */
export const RECALL_TOOL = 'recall_history'

/** The data a prompt shows for a call that no stored result answers. */
export const NO_RESULT = '{"error":"no result was recorded"}'

/** One message of a pairing-safe rendering: a stored event, or one tool result placed after its call. */
export type PairedMessage<E extends Paired = Paired> =
  | { kind: 'event'; event: E }
  | { kind: 'result'; id: string; name: string; data: string; placeholder: boolean }

/** Where the newest turn starts in a view (its index; the view's length when it has no turn). */
const newestTurnStart = (view: readonly Paired[]): number => {
  for (let i = view.length - 1; i >= 0; i--) if (isTurnStart(view[i]!)) return i
  return view.length
}

/**
 * The ids of the tool calls the newest turn's assistant messages made that no later tool message
 * of that turn answers, `recall_history` calls excluded: what the client still owes.
 *
 * @example
 * pendingToolCalls(view) // ['call_1', 'call_2']
 */
export function pendingToolCalls(view: readonly Paired[]): string[] {
  const pending = new Map<string, true>()
  for (let i = newestTurnStart(view); i < view.length; i++) {
    const { message } = view[i]!
    for (const call of message.toolCalls ?? []) if (call.name !== RECALL_TOOL) pending.set(call.id, true)
    for (const response of message.toolResponses ?? []) pending.delete(response.id)
  }
  return [...pending.keys()]
}

/**
 * A view rendered pairing-safe. After each assistant message with tool calls come its results,
 * one per call in call order: the first stored result for that id later in the view (its data
 * verbatim), or a placeholder ({@link NO_RESULT}). Stored results are shown only there: one
 * whose call is not before it in the view is left out. With `open: true` the newest turn's
 * pending calls stay unanswered instead (what `GET /view?format=openai` shows: the client owes
 * them); a prompt never leaves a call open.
 *
 * @example
 * pairToolResults([call('c1'), user('go on')]) // call, placeholder result for c1, user
 */
export function pairToolResults<E extends Paired>(view: readonly E[], options: { open?: boolean } = {}): PairedMessage<E>[] {
  const newest = newestTurnStart(view)
  // Every stored result by id, in view order: a call takes the first one after it.
  const results = new Map<string, { at: number; name: string; data: string }[]>()
  view.forEach((event, at) => {
    for (const response of event.message.toolResponses ?? []) {
      const list = results.get(response.id) ?? []
      list.push({ at, name: response.name, data: response.data })
      results.set(response.id, list)
    }
  })
  const used = new Set<object>() // stored results already placed after a call
  const out: PairedMessage<E>[] = []
  view.forEach((event, at) => {
    const { message } = event
    if (message.role === 'tool') return // placed after their calls, or left out
    out.push({ kind: 'event', event })
    for (const call of message.toolCalls ?? []) {
      const answer = (results.get(call.id) ?? []).find((r) => r.at > at && !used.has(r))
      if (answer) {
        used.add(answer)
        out.push({ kind: 'result', id: call.id, name: answer.name, data: answer.data, placeholder: false })
      } else if (!(options.open && at >= newest && call.name !== RECALL_TOOL)) {
        out.push({ kind: 'result', id: call.id, name: call.name, data: NO_RESULT, placeholder: true })
      }
    }
  })
  return out
}
