import { type Content, isTurnStart, type Message } from '../events'

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

/** The memory tool the service runs for the model when a request offers it (its calls' ids start {@link MEMORY_CALL_PREFIX}). */
export const MEMORY_TOOL = 'memory'

/** The prefix of the ids the service gives the memory calls it runs: a client's own tool named `memory` keeps its calls. */
export const MEMORY_CALL_PREFIX = 'mem_'

/**
 * Whether a tool call (or the response to it) is the service's own, never the client's to answer
 * or to be shown: `recall_history`, and the memory calls the service ran.
 *
 * @example
 * isServiceCall({ id: 'mem_1f…', name: 'memory' }) // true
 * isServiceCall({ id: 'call_1', name: 'memory' }) // false: a client tool of that name
 */
export const isServiceCall = (call: { id: string; name: string }): boolean =>
  call.name === RECALL_TOOL || (call.name === MEMORY_TOOL && call.id.startsWith(MEMORY_CALL_PREFIX))

/** The data a prompt shows for a call that no stored result answers. */
export const NO_RESULT = '{"error":"no result was recorded"}'

/** One message of a pairing-safe rendering: a stored event, or one tool result placed after its call. */
export type PairedMessage<E extends Paired = Paired> =
  | { kind: 'event'; event: E }
  | { kind: 'result'; id: string; name: string; data: Content; placeholder: boolean }

/** Where the newest turn starts in a view (its index; the view's length when it has no turn). */
const newestTurnStart = (view: readonly Paired[]): number => {
  for (let i = view.length - 1; i >= 0; i--) if (isTurnStart(view[i]!)) return i
  return view.length
}

/**
 * The ids of the tool calls the newest turn's assistant messages made that no later tool message
 * of that turn answers, the service's own calls excluded: what the client still owes.
 *
 * @example
 * pendingToolCalls(view) // ['call_1', 'call_2']
 */
export function pendingToolCalls(view: readonly Paired[]): string[] {
  const pending = new Map<string, true>()
  for (let i = newestTurnStart(view); i < view.length; i++) {
    const { message } = view[i]!
    for (const call of message.toolCalls ?? []) if (!isServiceCall(call)) pending.set(call.id, true)
    for (const response of message.toolResponses ?? []) pending.delete(response.id)
  }
  return [...pending.keys()]
}

/** A stored tool response by where it is: its event's position in the view, and its index there. */
export interface ResultRef {
  at: number
  index: number
}

/** The result shown after one call: a stored response (`from`), or the placeholder when `from` is null. */
export interface Placement {
  id: string
  name: string
  from: ResultRef | null
}

/**
 * Which stored response answers each tool call, decided from ids and positions alone (so a store
 * can render a large view without holding its results): a call takes the first response with its
 * id after it that no earlier call took; none → the placeholder. With `open` the newest turn's
 * client calls that nothing answers are left open instead (shown unanswered).
 *
 * @example
 * const placement = new ResultPlacement([{ at: 2, index: 0, id: 'c1' }], { newestStart: 0, open: false })
 * placement.after(1, [{ id: 'c1', name: 'f' }]) // [{ id: 'c1', name: 'f', from: { at: 2, index: 0 } }]
 */
export class ResultPlacement {
  private readonly byId = new Map<string, ResultRef[]>()
  private readonly used = new Set<ResultRef>()

  /** `responses`: every stored response of the view with its id, in view order. */
  constructor(
    responses: Iterable<ResultRef & { id: string }>,
    private readonly options: { newestStart: number; open: boolean },
  ) {
    for (const { at, index, id } of responses) {
      const list = this.byId.get(id) ?? []
      list.push({ at, index })
      this.byId.set(id, list)
    }
  }

  /** The results to show right after the calls of the message at `at`, in call order. */
  after(at: number, calls: readonly { id: string; name: string }[]): Placement[] {
    const placed: Placement[] = []
    for (const call of calls) {
      const from = (this.byId.get(call.id) ?? []).find((ref) => ref.at > at && !this.used.has(ref))
      if (from) this.used.add(from)
      if (from || !(this.options.open && at >= this.options.newestStart && !isServiceCall(call))) {
        placed.push({ id: call.id, name: call.name, from: from ?? null })
      }
    }
    return placed
  }
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
  const responses = view.flatMap((event, at) =>
    (event.message.toolResponses ?? []).map((response, index) => ({ at, index, id: response.id })),
  )
  const placement = new ResultPlacement(responses, { newestStart: newestTurnStart(view), open: options.open ?? false })
  const out: PairedMessage<E>[] = []
  view.forEach((event, at) => {
    const { message } = event
    if (message.role === 'tool') return // placed after their calls, or left out
    out.push({ kind: 'event', event })
    for (const { id, name, from } of placement.after(at, message.toolCalls ?? [])) {
      const stored = from && view[from.at]!.message.toolResponses![from.index]!
      out.push(
        stored
          ? { kind: 'result', id, name: stored.name, data: stored.data, placeholder: false }
          : { kind: 'result', id, name, data: NO_RESULT, placeholder: true },
      )
    }
  })
  return out
}
