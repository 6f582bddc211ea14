/**
 * Test fixtures for the core: short-hand events and logs. Not part of the core's public API.
 */

import { type CompactDeps, type CompactionResult, type CompactRequest, compact } from '../compact'
import { atSeq, type Message, type MessageEvent, type NewEvent, type NewMessageEvent } from '../events'
import { newMessageEvent } from '../events/new-event'
import { type PassCut, type PassOptions, type PassPlan, planPass } from '../pass'
import { ArrayStore } from '../session-store/array-store'
import type { Summarizer, SummaryOutcome, SummaryRequest } from '../summarizer'
import { countingEstimator, type TokenEstimator } from '../tokens'
import { defaultEstimator } from '../tokens/gpt-tokenizer'
import { RECALL_TOOL } from '../tool-pairs'
import { columnsOf, type Positions } from '../view/columns'

export const TIMESTAMP = '2026-01-01T00:00:00.000Z'

/** A message event whose id is its label; `tokens` overrides the estimate when given. */
export function msg(id: string, message: Message, options: { tokens?: number; synthetic?: boolean } = {}): NewMessageEvent {
  const event = newMessageEvent({ id, message, timestamp: TIMESTAMP, synthetic: options.synthetic }, defaultEstimator)
  return options.tokens === undefined ? event : { ...event, tokens: options.tokens }
}

export const user = (id: string, tokens?: number) => msg(id, { role: 'user', content: id }, { tokens })
export const assistant = (id: string, tokens?: number) => msg(id, { role: 'assistant', content: id }, { tokens })
export const system = (id: string, tokens?: number) => msg(id, { role: 'system', content: id }, { tokens })
export const summary = (id: string, role: 'user' | 'assistant' = 'assistant') =>
  msg(id, { role, content: id }, { synthetic: true })
export const toolCall = (id: string) =>
  msg(id, { role: 'assistant', content: null, toolCalls: [{ id: `call_${id}`, name: 'lookup', arguments: `{"q":"${id}"}` }] })
/** An assistant event calling a tool per id: `f_<id>`, or `recall_history` for an id starting with `r`. */
export const calling = (id: string, ...ids: string[]) =>
  msg(id, {
    role: 'assistant',
    content: null,
    toolCalls: ids.map((c) => ({ id: c, name: c.startsWith('r') ? RECALL_TOOL : `f_${c}`, arguments: '{}' })),
  })
export const toolResult = (id: string) =>
  msg(id, { role: 'tool', content: null, toolResponses: [{ id: `call_${id}`, name: 'lookup', data: `result ${id}` }] })

/**
 * Events from a compact notation: `U…` user, `A…` assistant, `S…` system, `T…` tool result,
 * `C…` assistant tool call, `Σ…` synthetic summary.
 *
 * @example
 * events('U1 A1 U2 C2 T2 A2')
 */
export function events(notation: string): NewMessageEvent[] {
  return notation
    .split(/\s+/)
    .filter(Boolean)
    .map((label) => {
      switch (label[0]) {
        case 'U':
          return user(label)
        case 'A':
          return assistant(label)
        case 'S':
          return system(label)
        case 'T':
          return toolResult(label)
        case 'C':
          return toolCall(label)
        case 'Σ':
          return summary(label)
        default:
          throw new Error(`unknown label ${label}`)
      }
    })
}

/** Gives events consecutive `seq`s from 1, as a log would. */
export const sequenced = (list: NewMessageEvent[]): MessageEvent[] => list.map((event, i) => atSeq(event, i + 1))

export const ids = (list: readonly { id: string }[]) => list.map((event) => event.id)
export const idString = (list: readonly { id: string }[]) => ids(list).join(' ')

/** An array store holding the given events. */
export function storeOf(list: NewEvent[]): ArrayStore {
  const store = new ArrayStore()
  if (list.length > 0) store.appendNow(list)
  return store
}

/** A pass's result with the events it names by seq read from the array store. */
export type ListedResult = Omit<CompactionResult, 'covered' | 'pinned' | 'preserved'> & {
  covered: MessageEvent[]
  pinned: MessageEvent[]
  preserved: MessageEvent[]
}

/**
 * Runs `compact` on an array store and answers its result with whole events in its lists, for
 * expectations by id.
 */
export async function compactListed(request: CompactRequest, deps: CompactDeps & { store: ArrayStore }): Promise<ListedResult> {
  const result = await compact(request, deps)
  const { store } = deps
  return {
    ...result,
    covered: store.eventsAt(result.covered),
    pinned: store.eventsAt(result.pinned),
    preserved: store.eventsAt(result.preserved),
  }
}

/** Dependencies for `compact` with deterministic ids and a counting estimator. */
export function depsFor(store: ArrayStore, estimator: TokenEstimator = defaultEstimator) {
  let next = 0
  const warnings: { message: string; data: Record<string, unknown> }[] = []
  const counting = countingEstimator(estimator)
  const deps: CompactDeps & { store: ArrayStore; warnings: typeof warnings; estimator: typeof counting } = {
    store,
    estimator: counting,
    newId: () => `gen${++next}`,
    now: () => TIMESTAMP,
    warn: (message, data) => warnings.push({ message, data }),
    warnings,
  }
  return deps
}

/** A summarizer that writes a two-message summary turn naming what it covered, and records calls. */
export function recordingSummarizer(answer?: (request: SummaryRequest) => Promise<SummaryOutcome> | SummaryOutcome) {
  const requests: SummaryRequest[] = []
  const summarizer: Summarizer & { requests: SummaryRequest[] } = {
    requests,
    async summarize(request) {
      requests.push(request)
      if (answer) return answer(request)
      const prior = request.priorSummary.map((event) => event.message.content).join(' ')
      return {
        kind: 'summary',
        messages: [
          { role: 'user', content: 'Summarize the conversation so far.' },
          { role: 'assistant', content: `summary of [${prior}] ${idString(request.covered)}`.trim() },
        ],
      }
    },
  }
  return summarizer
}

/** A pass's lists with the view's events in place of positions (the pass itself holds positions). */
export type ListedCut = Omit<PassCut, 'pinned' | 'covered' | 'preserved' | 'priorSummary' | 'coveredConversation'> & {
  [K in 'pinned' | 'covered' | 'preserved' | 'priorSummary' | 'coveredConversation']: MessageEvent[]
}

/** The events at a cut's positions of `view` (the events the cut was planned over, in view order). */
export function listedCut(view: readonly MessageEvent[], cut: PassCut): ListedCut {
  const at = (positions: Positions) => Array.from(positions, (p) => view[p]!)
  return {
    ...cut,
    pinned: at(cut.pinned),
    covered: at(cut.covered),
    preserved: at(cut.preserved),
    priorSummary: at(cut.priorSummary),
    coveredConversation: at(cut.coveredConversation),
  }
}

/** `planPass` over a view given as events, its lists as those events. */
export function planOf(
  view: MessageEvent[],
  options: PassOptions,
): Exclude<PassPlan, { kind: 'cut' }> | ({ kind: 'cut' } & ListedCut) {
  const plan = planPass(columnsOf(view), options)
  return plan.kind === 'cut' ? { ...listedCut(view, plan), kind: 'cut' } : plan
}
