import { isTurnStart, type MessageEvent, type MessageSkeleton, type ViewEvent } from '../events'
import { analyzeView, type ViewAnalysis } from '../view'
import { rawCut, type Window } from '../windows'

/** Where a pass cuts, and the view split accordingly (every list in view order). */
export interface PassCut<E extends ViewEvent = MessageEvent> {
  /** The view the pass was computed from. */
  before: E[]
  /** How many conversation events (from the first turn start) the pass covers. */
  cut: number
  summarizing: boolean
  pinned: E[]
  covered: E[]
  preserved: E[]
  /** The prior summary, which is covered (and summarized) when summarizing, pinned otherwise. */
  priorSummary: E[]
  /** Covered conversation for the summarizer: no system messages, no prior summary. */
  coveredConversation: E[]
}

export type PassPlan<E extends ViewEvent = MessageEvent> =
  | { kind: 'unchanged'; reason: 'nothing_to_cover' }
  | ({ kind: 'cut' } & PassCut<E>)

/**
 * Moves a raw cut to a turn start: forward to the next one, or, when there is none or the cut
 * would cover everything, back to the newest turn so that it is always kept.
 */
export function turnSafeCut(raw: number, size: number, turnStarts: readonly number[]): number {
  if (raw < size) {
    const next = turnStarts.find((start) => start >= raw)
    if (next !== undefined) return next
  }
  return turnStarts.at(-1) ?? 0
}

/**
 * Splits a view at a given cut of its conversation (steps 1, 2 and 6 of the spec). The parts come
 * from the view's analysis, the one place the spec's split is made; this only lists them in view
 * order. Used by the pass and again by a rebase, which keeps the cut and re-splits a longer view.
 */
export function splitView<E extends ViewEvent>(
  before: E[],
  analysis: ViewAnalysis<E>,
  cut: number,
  summarizing: boolean,
): PassCut<E> {
  const { latestSystem, superseded, priorSummary, preamble, conversation } = analysis
  const pinned: E[] = latestSystem ? [latestSystem] : []
  const covered: E[] = []
  // Each part of the analysis is in view order: walking the view, the next event is the head of
  // exactly one of them, so a pointer per part sorts it without sets or a second rule.
  let s = 0
  let p = 0
  let r = 0
  let c = 0
  for (const event of before) {
    if (event === latestSystem) continue
    if (event === superseded[s]) {
      covered.push(event)
      s++
    } else if (event === priorSummary[p]) {
      ;(summarizing ? covered : pinned).push(event)
      p++
    } else if (event === preamble[r]) {
      pinned.push(event)
      r++
    } else if (c++ < cut) covered.push(event)
  }
  return {
    before,
    cut,
    summarizing,
    pinned,
    covered,
    preserved: conversation.slice(cut),
    priorSummary,
    coveredConversation: conversation.slice(0, cut),
  }
}

export interface PassOptions {
  window: Window
  summarizing: boolean
  /** Non-system events not written yet that count as the newest turn (see `compact`). */
  pending?: readonly MessageSkeleton[]
}

/**
 * Plans one pass of the window strategy over a view (steps 1–6 of the spec): what is pinned,
 * covered and preserved, or that there is nothing to cover.
 *
 * @example
 * const plan = planPass(view, { window: { lastTurns: 4 }, summarizing: false })
 * if (plan.kind === 'cut') console.log(plan.covered.length)
 */
export function planPass<E extends ViewEvent>(view: E[], options: PassOptions): PassPlan<E> {
  const analysis = analyzeView(view)
  const { latestSystem, preamble, priorSummary, conversation, turnStarts } = analysis
  const pinnedTokens =
    (latestSystem?.tokens ?? 0) +
    preamble.reduce((sum, event) => sum + event.tokens, 0) +
    (options.summarizing ? 0 : priorSummary.reduce((sum, event) => sum + event.tokens, 0))
  // Pending events (a user message about to be sent) join the conversation for the cut only:
  // as the newest turn they let every stored turn be covered, and they are never covered.
  const pending = options.pending ?? []
  const events = pending.length > 0 ? [...conversation, ...pending] : conversation
  const starts = [...turnStarts]
  pending.forEach((event, i) => {
    if (isTurnStart(event)) starts.push(conversation.length + i)
  })
  const raw = rawCut(options.window, { events, turnStarts: starts, pinnedTokens })
  const cut = Math.min(turnSafeCut(raw, events.length, starts), conversation.length)
  if (cut === 0) return { kind: 'unchanged', reason: 'nothing_to_cover' }
  return { kind: 'cut', ...splitView(view, analysis, cut, options.summarizing) }
}
