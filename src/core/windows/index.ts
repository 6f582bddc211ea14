import { formatProblem, isPositiveInteger, type Problem } from '../problem'
import type { KindValue } from '../triggers'

/**
 * Windows say how much of the conversation a pass keeps. Plain data, the shape the HTTP API
 * takes.
 */
export type Window = { lastEvents: number } | { lastTurns: number } | { tokenBudget: number }

export const DEFAULT_LAST_EVENTS = 20

/** Every window kind and what it keeps: the one definition validation and the API document use. */
export const WINDOW_KINDS = {
  lastEvents: { value: 'positiveInteger', means: 'keeps the last n conversation events (whole turns)' },
  lastTurns: { value: 'positiveInteger', means: 'keeps the last n turns' },
  tokenBudget: { value: 'positiveInteger', means: 'keeps the newest turns whose tokens, with the pinned events, fit in n' },
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
  lastEvents: (n: number = DEFAULT_LAST_EVENTS): Window => checked({ lastEvents: n }),
  /** Keep the last `n` turns. */
  lastTurns: (n: number): Window => checked({ lastTurns: n }),
  /** Keep the longest suffix whose tokens, with the pinned events', fit in `t`. */
  tokenBudget: (t: number): Window => checked({ tokenBudget: t }),
}

export const DEFAULT_WINDOW: Window = { lastEvents: DEFAULT_LAST_EVENTS }

const checked = (window: Window): Window => {
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
  if (keys.length !== 1) return { path: [], message: 'must have exactly one of lastEvents, lastTurns, tokenBudget' }
  const key = keys[0]!
  if (key !== 'lastEvents' && key !== 'lastTurns' && key !== 'tokenBudget')
    return { path: [], message: `unknown window "${key}"` }
  return isPositiveInteger((window as Record<string, unknown>)[key]) ? null : { path: [key], message: 'must be an integer ≥ 1' }
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
export function rawCut(window: Window, input: CutInput): number {
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
