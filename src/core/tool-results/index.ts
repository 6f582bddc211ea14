import type { Content, Message, MessageEvent, ToolCall } from '../events'
import { contentKey } from '../parts'
import { pendingToolCalls } from '../tool-pairs'

/** One result a client sends for a tool call: exactly one of `data` (text, or parts: a screenshot) and `error`. */
export interface ToolResultInput {
  id: string
  name?: string
  data?: Content
  error?: string
}

/** The data an interrupted call's result holds: the user moved on before sending one. */
export const INTERRUPTED_RESULT = '{"error":"interrupted: no result was sent"}'

/** What a continuation with tool results is, checked against the newest turn in the contract's order. */
export type ToolResultsPlan =
  /** Every result is stored already and a reply followed them: the request is a retry of that step. */
  | { kind: 'retry'; results: MessageEvent; reply: MessageEvent }
  | { kind: 'refused'; code: ToolResultsRefusal; message: string }
  /** The tool event to write (with the reply), and the calls it answers. */
  | { kind: 'continue'; message: Message; metadata: { toolErrors?: string[] } }

export type ToolResultsRefusal = 'id_conflict' | 'no_pending_tool_calls' | 'unknown_tool_call' | 'tool_results_incomplete'

const stored = (result: ToolResultInput): Content => result.data ?? result.error ?? ''
const list = (ids: readonly string[]) => ids.map((id) => `"${id}"`).join(', ')

/**
 * Checks a continuation's tool results against the newest turn (its events in log order), in
 * the contract's order: a retry (every id answered the same, a reply after) or an id answered
 * differently; nothing pending; an id not pending; pending ids left unanswered. Otherwise it
 * answers the one tool event to write: responses in request order, each named as its call, an
 * error stored as its text and listed in `toolErrors`. `fieldOf` names a result's field in messages.
 *
 * @example
 * const plan = planToolResults(newestTurn, [{ id: 'call_1', data: '{"temp":21}' }])
 * if (plan.kind === 'continue') write(plan.message, plan.metadata)
 */
export function planToolResults(
  turn: readonly MessageEvent[],
  results: readonly ToolResultInput[],
  fieldOf: (at: number, key: 'id' | 'name') => string = (at, key) => `toolResults[${at}].${key}`,
): ToolResultsPlan {
  const calls = new Map<string, ToolCall>()
  const answers = new Map<string, { at: number; data: Content; error: boolean }>()
  turn.forEach((event, at) => {
    for (const call of event.message.toolCalls ?? []) calls.set(call.id, call)
    const errors = new Set(toolErrorsOf(event))
    for (const response of event.message.toolResponses ?? []) {
      if (!answers.has(response.id)) answers.set(response.id, { at, data: response.data, error: errors.has(response.id) })
    }
  })

  // 1. A retry: every id answered with the same result, and a reply stored after them.
  for (const result of results) {
    const answer = answers.get(result.id)
    if (answer && (contentKey(answer.data) !== contentKey(stored(result)) || answer.error !== (result.error !== undefined))) {
      return refused('id_conflict', `tool call "${result.id}" is already answered with a different result`)
    }
  }
  if (results.every((result) => answers.has(result.id))) {
    const last = Math.max(...results.map((result) => answers.get(result.id)!.at))
    const reply = turn.slice(last + 1).find((event) => event.message.role === 'assistant')
    if (reply) return { kind: 'retry', results: turn[last]!, reply }
  }

  // 2–4. Against what is pending.
  const pending = pendingToolCalls(turn)
  if (pending.length === 0) return refused('no_pending_tool_calls', 'the newest turn has no tool calls waiting for results')
  const owed = new Set(pending)
  for (const [at, result] of results.entries()) {
    if (!owed.has(result.id)) {
      return refused('unknown_tool_call', `${fieldOf(at, 'id')}: "${result.id}" is not a pending tool call of the newest turn`)
    }
    const name = calls.get(result.id)!.name
    if (result.name !== undefined && result.name !== name) {
      return refused(
        'unknown_tool_call',
        `${fieldOf(at, 'name')}: tool call "${result.id}" is a call of "${name}", not "${result.name}"`,
      )
    }
  }
  const given = new Set(results.map((result) => result.id))
  const missing = pending.filter((id) => !given.has(id))
  if (missing.length > 0) {
    return refused('tool_results_incomplete', `results are missing for the pending tool calls ${list(missing)}`)
  }

  const toolErrors = results.filter((result) => result.error !== undefined).map((result) => result.id)
  return {
    kind: 'continue',
    message: {
      role: 'tool',
      content: null,
      toolResponses: results.map((result) => ({ id: result.id, name: calls.get(result.id)!.name, data: stored(result) })),
    },
    metadata: toolErrors.length > 0 ? { toolErrors } : {},
  }
}

/**
 * The tool message that closes the newest turn's pending calls when the user moves on, each
 * answered {@link INTERRUPTED_RESULT}; null when nothing is pending.
 */
export function interruptedResults(turn: readonly MessageEvent[]): Message | null {
  const pending = pendingToolCalls(turn)
  if (pending.length === 0) return null
  const names = new Map(turn.flatMap((event) => (event.message.toolCalls ?? []).map((call) => [call.id, call.name] as const)))
  return {
    role: 'tool',
    content: null,
    toolResponses: pending.map((id) => ({ id, name: names.get(id)!, data: INTERRUPTED_RESULT })),
  }
}

/** The ids an event's metadata lists as error results. */
function toolErrorsOf(event: MessageEvent): string[] {
  const errors = event.metadata.toolErrors
  return Array.isArray(errors) ? errors.filter((id): id is string => typeof id === 'string') : []
}

const refused = (code: ToolResultsRefusal, message: string): ToolResultsPlan => ({ kind: 'refused', code, message })
