import { isTurnStart, type MessageSkeleton } from '../events'
import { NO_PINS, type ViewPins } from '../pins'
import type { ModelFit } from '../triggers'
import { analyzeColumns, type ColumnsAnalysis } from '../view'
import type { Positions, ViewColumns } from '../view/columns'
import { cutWindow, rawCut, type Window } from '../windows'

/** Where a pass cuts, and the view split accordingly: positions in `before`, every list in view order. */
export interface PassCut {
  /** The view the pass was computed from, and its tokens. */
  before: ViewColumns
  beforeTokens: number
  /** How many conversation events (from the first turn start) the pass covers. */
  cut: number
  summarizing: boolean
  pinned: Positions
  /** The events of `pinned` there because of a pin (what the boundary's `held` names). */
  held: Positions
  covered: Positions
  preserved: Positions
  /** The prior summary, which is covered (and summarized) when summarizing, pinned otherwise. */
  priorSummary: Positions
  /** Covered conversation for the summarizer: no system messages, no prior summary. */
  coveredConversation: Positions
  /** The pins the view was analysed with (a rebase analyses the longer view with them). */
  pins: ViewPins
  /**
   * Lists not made by the window's split (a pass inside the newest turn, a clearing that keeps
   * every message): a rebase adds the messages appended meanwhile to `preserved` and changes
   * nothing else.
   */
  fixed?: true
}

export type PassPlan = { kind: 'unchanged'; reason: 'nothing_to_cover' } | ({ kind: 'cut' } & PassCut)

/**
 * Moves a raw cut to a turn start: forward to the next one, or, when there is none or the cut
 * would cover everything, back to the newest turn so that it is always kept.
 */
export function turnSafeCut(raw: number, size: number, turnStarts: ArrayLike<number>): number {
  const count = turnStarts.length
  if (raw < size) {
    // The first turn start at or after the raw cut (turn starts ascend).
    let low = 0
    let high = count
    while (low < high) {
      const mid = (low + high) >>> 1
      if (turnStarts[mid]! < raw) low = mid + 1
      else high = mid
    }
    if (low < count) return turnStarts[low]!
  }
  return count > 0 ? turnStarts[count - 1]! : 0
}

/** A list of positions being filled, at most `capacity` long. */
const filling = (capacity: number) => {
  const list = new Int32Array(capacity)
  let size = 0
  return {
    push: (p: number) => {
      list[size] = p
      size += 1
    },
    done: () => list.subarray(0, size),
  }
}

/**
 * Splits a view at a given cut of its conversation (steps 1, 2 and 6 of the spec). The parts come
 * from the view's analysis, the one place the spec's split is made; this only lists them in view
 * order. A pinned event the cut would cover moves to the pinned part — after the latest system
 * message and the preamble, in log order, before any summary — and one after the cut stays where
 * it is. Used by the pass and again by a rebase, which keeps the cut and re-splits a longer view.
 */
export function splitView(
  before: ViewColumns,
  analysis: ColumnsAnalysis,
  cut: number,
  summarizing: boolean,
  pins: ViewPins = NO_PINS,
): PassCut {
  const { latestSystem, superseded, priorSummary, preamble, pinnedEvents, conversation } = analysis
  // Where the kept conversation starts in the view: pinned events before it are held in the pinned part.
  const cutAt = cut < conversation.length ? conversation[cut]! : before.length
  const head = filling(before.length)
  const summaries = filling(before.length)
  const covered = filling(before.length)
  const preserved = filling(before.length)
  if (latestSystem >= 0) head.push(latestSystem)
  // Each part of the analysis is in view order: walking the view, the next position is the head
  // of exactly one of them, so a pointer per part sorts it without sets or a second rule.
  let s = 0
  let p = 0
  let r = 0
  let k = 0
  let c = 0
  for (let at = 0; at < before.length; at++) {
    if (at === latestSystem) continue
    if (at === superseded[s]) {
      covered.push(at)
      s++
    } else if (at === priorSummary[p]) {
      ;(summarizing ? covered : summaries).push(at)
      p++
    } else if (at === preamble[r]) {
      head.push(at)
      r++
    } else if (at === pinnedEvents[k]) {
      if (at >= cutAt) preserved.push(at)
      k++
    } else (c++ < cut ? covered : preserved).push(at)
  }
  const held = Int32Array.from(pinnedEvents.filter((at) => at < cutAt)).sort((a, b) => before.seq(a) - before.seq(b))
  const pinned = new Int32Array([...head.done(), ...held, ...summaries.done()])
  return {
    before,
    beforeTokens: analysis.tokens,
    cut,
    summarizing,
    pinned,
    held,
    covered: covered.done(),
    preserved: preserved.done(),
    priorSummary,
    coveredConversation: conversation.subarray(0, cut),
    pins,
  }
}

export interface PassOptions {
  window: Window
  /** Which events are pinned now, and which the newest boundary held (default: none). */
  pins?: ViewPins
  /** The model the pass fits for: what a `contextFraction` window is a fraction of. */
  model?: ModelFit
  summarizing: boolean
  /** Non-system events not written yet that count as the newest turn (see `compact`). */
  pending?: readonly MessageSkeleton[]
}

/**
 * Plans one pass of the window strategy over a view (steps 1–6 of the spec): what is pinned,
 * covered and preserved, or that there is nothing to cover.
 *
 * @example
 * const plan = planPass(columnsOf(view), { window: { lastTurns: 4 }, summarizing: false })
 * if (plan.kind === 'cut') console.log(plan.covered.length)
 */
export function planPass(view: ViewColumns, options: PassOptions, analysis = analyzeColumns(view, options.pins)): PassPlan {
  const { latestSystem, preamble, priorSummary, pinnedEvents, conversation, turnStarts } = analysis
  const sum = (positions: Positions) => positions.reduce((total, at) => total + view.tokens(at), 0)
  // Pinned events take no slot of a window and come off a token budget first.
  const pinnedTokens =
    (latestSystem >= 0 ? view.tokens(latestSystem) : 0) +
    sum(preamble) +
    sum(pinnedEvents) +
    (options.summarizing ? 0 : sum(priorSummary))
  // Pending events (a user message about to be sent) join the conversation for the cut only:
  // as the newest turn they let every stored turn be covered, and they are never covered.
  const pending = options.pending ?? []
  const size = conversation.length + pending.length
  const tokens = (i: number) =>
    i < conversation.length ? view.tokens(conversation[i]!) : pending[i - conversation.length]!.tokens
  const pendingStarts = pending.flatMap((event, i) => (isTurnStart(event) ? [conversation.length + i] : []))
  let starts = turnStarts
  if (pendingStarts.length > 0) {
    starts = new Int32Array(turnStarts.length + pendingStarts.length)
    starts.set(turnStarts)
    starts.set(pendingStarts, turnStarts.length)
  }
  const raw = rawCut(cutWindow(options.window, options.model), { size, tokens, turnStarts: starts, pinnedTokens })
  // A window that keeps everything covers nothing, even when the conversation starts with the
  // reply to a pinned question (no turn start of its own).
  const cut = raw === 0 ? 0 : Math.min(turnSafeCut(raw, size, starts), conversation.length)
  if (cut === 0) return { kind: 'unchanged', reason: 'nothing_to_cover' }
  return { kind: 'cut', ...splitView(view, analysis, cut, options.summarizing, options.pins) }
}

/**
 * A pass that keeps the whole view as it is (a clearing: what changes is how some of its messages
 * are shown): nothing covered, everything preserved in view order, the events the newest boundary
 * held still held.
 *
 * @example
 * const plan = keepAllPlan(view, pins) // plan.preserved: every position
 */
export function keepAllPlan(view: ViewColumns, pins: ViewPins = NO_PINS, analysis = analyzeColumns(view, pins)): PassCut {
  const all = new Int32Array(view.length)
  for (let p = 0; p < view.length; p++) all[p] = p
  const held: number[] = []
  for (let p = 0; p < view.length; p++) if (pins.held(view.seq(p))) held.push(p)
  return {
    before: view,
    beforeTokens: analysis.tokens,
    cut: 0,
    summarizing: false,
    pinned: new Int32Array(0),
    held: Int32Array.from(held),
    covered: new Int32Array(0),
    preserved: all,
    priorSummary: new Int32Array(0),
    coveredConversation: new Int32Array(0),
    pins,
    fixed: true,
  }
}
