import type { SummaryMessage } from '../summarizer'
import type { ModelFit, Trigger } from '../triggers'

/**
 * A summary written ahead of the pass that will want it (round4 §6): the summary of what the
 * session's strategy would cover if it ran then (or once the next message came). It is kept beside the log, never in it (no event,
 * not in the view), with the range it covers by seq, so that a pass uses it only when it covers
 * that range first: a pass never gets a summary of an event it does not cover.
 */
export interface PreparedSummary {
  /** The view's prior summary it rolled in, by seq (empty: none). */
  prior: Int32Array
  /** The conversation events it covers, by seq, in view order. */
  covered: Int32Array
  /** The summary turn: the shadow prompt, then the summary. */
  messages: SummaryMessage[]
  /** The conversation's title, when the summary model was asked for one with it. */
  title?: string
}

const sameSeqs = (a: Int32Array, b: Int32Array, length = a.length) => {
  if (a.length < length || b.length < length) return false
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * How many of a pass's covered conversation events (by seq, in view order) a prepared summary
 * already covers: all of them, a first part of them, or null when it cannot be used — another
 * prior summary, or a range that is not the first part of the pass's (an event rewound, undone,
 * pinned or edited away in between changes the seqs, so it never matches).
 *
 * @example
 * preparedPrefix(prepared, Int32Array.of(), Int32Array.of(1, 2, 3, 4)) // 3 when it covers 1, 2, 3
 */
export function preparedPrefix(prepared: PreparedSummary, prior: Int32Array, covered: Int32Array): number | null {
  const length = prepared.covered.length
  if (length === 0 || length > covered.length) return null
  if (prepared.prior.length !== prior.length || !sameSeqs(prepared.prior, prior)) return null
  return sameSeqs(prepared.covered, covered, length) ? length : null
}

/**
 * The prepared summary a pass takes (the one that covers the most of its range first), and how
 * many of its covered events that one covers; null when none can be used.
 *
 * @example
 * bestPrepared(prepared, prior, covered) // { prepared: prepared[1], from: 6 }
 */
export function bestPrepared(
  list: readonly PreparedSummary[],
  prior: Int32Array,
  covered: Int32Array,
): { prepared: PreparedSummary; from: number } | null {
  let best: { prepared: PreparedSummary; from: number } | null = null
  for (const prepared of list) {
    const from = preparedPrefix(prepared, prior, covered)
    if (from !== null && from > (best?.from ?? 0)) best = { prepared, from }
  }
  return best
}

/**
 * The tokens a trigger fires at, for a prepared summary's mark: a `tokenCount`'s count, a
 * `contextFraction`'s share of the prompt budget (in estimated tokens), the lowest of an `anyOf`'s
 * and the highest of an `allOf`'s that count tokens; the whole prompt budget for a trigger that
 * counts none.
 *
 * @example
 * triggerTokens({ contextFraction: 0.6 }, { promptBudget: 10_000, ratio: 1 }) // 6000
 */
export function triggerTokens(trigger: Trigger | undefined, model: ModelFit): number {
  return tokensOf(trigger, model) ?? model.promptBudget / model.ratio
}

/** The tokens a trigger fires at, or null when it counts none (turns, always). */
function tokensOf(trigger: Trigger | undefined, model: ModelFit): number | null {
  if (!trigger) return null
  if ('tokenCount' in trigger) return trigger.tokenCount
  if ('contextFraction' in trigger) return (trigger.contextFraction * model.promptBudget) / model.ratio
  if ('anyOf' in trigger || 'allOf' in trigger) {
    const counted = ('anyOf' in trigger ? trigger.anyOf : trigger.allOf).flatMap((t) => tokensOf(t, model) ?? [])
    if (counted.length === 0) return null
    return 'anyOf' in trigger ? Math.min(...counted) : Math.max(...counted)
  }
  return null
}

/** Whether a view of these estimated tokens has passed a prepared summary's mark: `at` of its trigger's tokens. */
export const pastMark = (tokens: number, trigger: Trigger | undefined, model: ModelFit, at: number) =>
  tokens >= at * triggerTokens(trigger, model)
