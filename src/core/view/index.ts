import type { MessageSkeleton, ViewEvent } from '../events'
import { NO_PINS, type ViewPins } from '../pins'
import { columnsOf, type Positions, type ViewColumns } from './columns'

/** A view taken apart the way the compaction spec names its parts: positions in the view. */
export interface ColumnsAnalysis {
  /** The system message with the highest `seq`, the only one the model is shown; -1 if none. */
  latestSystem: number
  /** Every other system message of the view, in view order. */
  superseded: Positions
  /** Synthetic messages left by an earlier pass before the conversation, in view order (one inside a turn is conversation). */
  priorSummary: Positions
  /** Non-system, non-synthetic events before the first turn start (pinned ones aside). */
  preamble: Positions
  /** Events pinned now, wherever they are: no turn start, no slot of a window, never covered. */
  pinnedEvents: Positions
  /**
   * Everything else, in view order: it starts at the first turn start — or at an event the
   * newest boundary held because of a pin that is no longer pinned (it is covered by the next pass).
   */
  conversation: Positions
  /** Indices into `conversation` where a turn starts. */
  turnStarts: Int32Array
  turns: number
  /** The latest system message plus every non-system event; superseded ones do not count. */
  tokens: number
}

const isTurnStartAt = (view: ViewColumns, p: number) => view.role(p) === 'user' && !view.synthetic(p)

/**
 * Analyses a view in one pass over it, holding positions only (a few bytes an event). `pins`
 * says which events are pinned now and which the newest boundary held because of a pin.
 *
 * @example
 * const { turns, tokens, latestSystem } = analyzeColumns(columnsOf(view))
 */
export function analyzeColumns(view: ViewColumns, pins: ViewPins = NO_PINS): ColumnsAnalysis {
  const n = view.length
  const conversation = new Int32Array(n)
  const turnStarts = new Int32Array(n)
  const systems: number[] = []
  const priorSummary: number[] = []
  const preamble: number[] = []
  const pinnedEvents: number[] = []
  let conversed = 0
  let turns = 0
  let latestSystem = -1
  let tokens = 0
  // A pinned user message is no turn start, but what follows it is no preamble either.
  let pinnedUser = false

  for (let p = 0; p < n; p++) {
    if (view.role(p) === 'system' && !view.inline(p)) {
      systems.push(p)
      if (latestSystem < 0 || view.seq(p) >= view.seq(latestSystem)) latestSystem = p
      continue
    }
    tokens += view.tokens(p)
    // A summary inside a turn (a pass within an agent's loop) is part of that turn's conversation.
    if (view.synthetic(p) && conversed === 0) priorSummary.push(p)
    else if (pins.pinned(view.seq(p))) {
      pinnedEvents.push(p)
      pinnedUser ||= view.role(p) === 'user'
    } else if (isTurnStartAt(view, p)) {
      turnStarts[turns++] = conversed
      conversation[conversed++] = p
    } else if (conversed === 0 && !pinnedUser && !pins.held(view.seq(p))) preamble.push(p)
    else conversation[conversed++] = p
  }
  if (latestSystem >= 0) tokens += view.tokens(latestSystem)

  return {
    latestSystem,
    superseded: Int32Array.from(systems.filter((p) => p !== latestSystem)),
    priorSummary: Int32Array.from(priorSummary),
    preamble: Int32Array.from(preamble),
    pinnedEvents: Int32Array.from(pinnedEvents),
    conversation: conversation.subarray(0, conversed),
    turnStarts: turnStarts.subarray(0, turns),
    turns,
    tokens,
  }
}

/** The same analysis with the view's own events in place of positions. */
export interface ViewAnalysis<E extends MessageSkeleton = MessageSkeleton> {
  latestSystem: E | null
  superseded: E[]
  priorSummary: E[]
  preamble: E[]
  pinnedEvents: E[]
  conversation: E[]
  /** Indices into `conversation` where a turn starts. */
  turnStarts: number[]
  turns: number
  tokens: number
}

/** Events not written yet have no seq: they count as the newest. */
const withSeq = <E extends MessageSkeleton>(view: readonly E[]) =>
  columnsOf(view.map((event) => ({ ...event, seq: event.seq ?? Number.MAX_SAFE_INTEGER }) as ViewEvent))

/**
 * Analyses a view given as events (see {@link analyzeColumns}, the one home of the rules).
 *
 * @example
 * const { turns, tokens, latestSystem } = analyzeView(view)
 */
export function analyzeView<E extends MessageSkeleton>(view: readonly E[], pins: ViewPins = NO_PINS): ViewAnalysis<E> {
  const a = analyzeColumns(withSeq(view), pins)
  const at = (positions: Positions) => Array.from(positions, (p) => view[p]!)
  return {
    latestSystem: a.latestSystem >= 0 ? view[a.latestSystem]! : null,
    superseded: at(a.superseded),
    priorSummary: at(a.priorSummary),
    preamble: at(a.preamble),
    pinnedEvents: at(a.pinnedEvents),
    conversation: at(a.conversation),
    turnStarts: Array.from(a.turnStarts),
    turns: a.turns,
    tokens: a.tokens,
  }
}

/** The spec's view tokens of a list of events (latest system message + non-system events). */
export const viewTokens = (view: readonly MessageSkeleton[]): number => analyzeView(view).tokens
