import { formatProblem, isPositiveInteger, type Problem } from '../problem'
import { isFraction, type KindValue, type ModelFit } from '../triggers'

/**
 * Windows say how much of the conversation a pass keeps. Plain data, the shape the HTTP API
 * takes.
 */
export type Window = { lastEvents: number } | { lastTurns: number } | { tokenBudget: number } | { contextFraction: number }

export const DEFAULT_LAST_EVENTS = 20

/** Every window kind and what it keeps: the one definition validation and the API document use. */
export const WINDOW_KINDS = {
  lastEvents: { value: 'positiveInteger', means: 'keeps the last n conversation events (whole turns)' },
  lastTurns: { value: 'positiveInteger', means: 'keeps the last n turns' },
  tokenBudget: { value: 'positiveInteger', means: 'keeps the newest turns whose tokens, with the pinned events, fit in n' },
  contextFraction: {
    value: 'fraction',
    means: "a tokenBudget of f (0 < f ≤ 1) of the model's prompt budget, in calibrated tokens",
  },
} as const satisfies Record<string, { value: KindValue; means: string }>

/**
 * Builds windows, checking their arguments.
 *
 * @example
 * windows.lastTurns(4)
 * windows.tokenBudget(6000)
 */
export const windows = {
  /** Keep the last `n` conversation events (default 20). */
  lastEvents: (n: number = DEFAULT_LAST_EVENTS) => checked({ lastEvents: n }),
  /** Keep the last `n` turns. */
  lastTurns: (n: number) => checked({ lastTurns: n }),
  /** Keep the longest suffix whose tokens, with the pinned events', fit in `t`. */
  tokenBudget: (t: number) => checked({ tokenBudget: t }),
  /** A `tokenBudget` of `f` of the model's prompt budget, in calibrated tokens. */
  contextFraction: (f: number) => checked({ contextFraction: f }),
}

export const DEFAULT_WINDOW: Window = { lastEvents: DEFAULT_LAST_EVENTS }

const checked = <W extends Window>(window: W): W => {
  const problem = windowProblem(window)
  if (problem) throw new RangeError(formatProblem('window', problem))
  return window
}

/**
 * Says what is wrong with a window given as data, or returns null when it is valid.
 *
 * @example
 * windowProblem({ lastTurns: 0 }) // { path: ['lastTurns'], message: 'must be an integer ≥ 1' }
 */
export function windowProblem(window: unknown): Problem | null {
  if (typeof window !== 'object' || window === null || Array.isArray(window)) return { path: [], message: 'must be an object' }
  const keys = Object.keys(window)
  const names = Object.keys(WINDOW_KINDS).join(', ')
  if (keys.length !== 1) return { path: [], message: `must have exactly one of ${names}` }
  const key = keys[0]!
  if (!Object.hasOwn(WINDOW_KINDS, key)) return { path: [], message: `unknown window "${key}"` }
  const value = (window as Record<string, unknown>)[key]
  if (WINDOW_KINDS[key as keyof typeof WINDOW_KINDS].value === 'fraction') {
    return isFraction(value) ? null : { path: [key], message: 'must be a number with 0 < f ≤ 1' }
  }
  return isPositiveInteger(value) ? null : { path: [key], message: 'must be an integer ≥ 1' }
}

/** A window that keeps a count or a number of estimated tokens: what a pass cuts by. */
export type CutWindow = Exclude<Window, { contextFraction: number }>

/**
 * A window in the units a pass cuts by: `contextFraction(f)` is `tokenBudget(⌊f × budget ÷ ratio⌋)`
 * (at least 1), estimate units for calibrated ones; the others as they are.
 *
 * @example
 * cutWindow({ contextFraction: 0.3 }, { promptBudget: 7168, ratio: 2 }) // { tokenBudget: 1075 }
 */
export function cutWindow(window: Window, model: ModelFit | undefined): CutWindow {
  if (!('contextFraction' in window)) return window
  if (!model) throw new RangeError('a contextFraction window needs the model a pass fits for')
  return { tokenBudget: Math.max(1, Math.floor((window.contextFraction * model.promptBudget) / model.ratio)) }
}

/** What a window needs to know about the conversation it cuts. */
export interface CutInput {
  /** The conversation's length in events. */
  size: number
  /** The token estimate of the conversation's event at an index (only estimates matter), in view order. */
  tokens(index: number): number
  /** Indices where a turn starts, ascending. */
  turnStarts: ArrayLike<number>
  /** Tokens of the pinned events, which come off a token budget first. */
  pinnedTokens: number
}

/**
 * The window's raw cut r: the conversation from index r on would be kept. Turn safety is
 * applied afterwards (see `../pass`).
 *
 * @example
 * rawCut({ lastEvents: 2 }, { size: 3, tokens: () => 1, turnStarts: [0, 2], pinnedTokens: 0 }) // 1
 */
export function rawCut(window: CutWindow, input: CutInput): number {
  const size = input.size
  if ('lastEvents' in window) return Math.max(0, size - window.lastEvents)
  if ('lastTurns' in window) {
    const starts = input.turnStarts
    return starts.length < window.lastTurns ? 0 : starts[starts.length - window.lastTurns]!
  }
  const budget = window.tokenBudget - input.pinnedTokens
  let r = size
  let suffix = 0
  while (r > 0 && suffix + input.tokens(r - 1) <= budget) {
    r -= 1
    suffix += input.tokens(r)
  }
  return r
}
