/**
 * Prompt fit: whether a chat prompt fits the model's prompt budget, and when it does not, which
 * compaction pass makes room for it. The arithmetic of the HTTP contract's "Before the model is
 * called" rule, in estimate units, with no I/O: the turn runs the passes this plans.
 */

/** The parts of a prompt, in tokens. */
export interface PromptParts {
  /** The stored view's tokens: its latest system message and every non-system event. */
  viewTokens: number
  /** The stored latest system message's tokens (0 when there is none). */
  storedSystemTokens: number
  /** The request's system message when it replaces the stored one; null keeps the stored one. */
  newSystemTokens: number | null
  /** What the request adds after the view: the new user message. */
  addedTokens: number
}

/**
 * The prompt's tokens: the view with its system message swapped for the request's, plus what the
 * request adds.
 *
 * @example
 * promptTokens({ viewTokens: 100, storedSystemTokens: 10, newSystemTokens: 4, addedTokens: 6 }) // 100
 */
export const promptTokens = (parts: PromptParts): number =>
  parts.viewTokens - parts.storedSystemTokens + systemTokens(parts) + parts.addedTokens

/** What no pass can shrink: the system message sent and what the request adds. */
const fixedTokens = (parts: PromptParts): number => systemTokens(parts) + parts.addedTokens

const systemTokens = (parts: PromptParts): number => parts.newSystemTokens ?? parts.storedSystemTokens

export interface FitState {
  /** The prompt budget: the context window less the room kept for the reply. */
  budget: number
  parts: PromptParts
  /** False when compaction is off for this turn. */
  canCompact: boolean
  /** Room kept free in a pass's token budget for the summary the pass writes. */
  summaryReserve: number
  /** Window passes over older turns already run for this prompt (before any refusal). */
  passes: number
  /**
   * When old tool results are cleared: first (the strategy clears), or only before a 413 (the
   * deployment's last resort: `keep: 3`). Default: last resort.
   */
  clearing?: 'first' | 'lastResort'
  /** Whether a clearing ran (or was tried) for this prompt. */
  cleared?: boolean
  /** Passes inside the newest turn already run for this prompt. */
  inTurn?: number
  /**
   * Set when the upstream refused the prompt as too long although the estimate fit (it counts
   * differently): how many passes ran since, and the upstream's words.
   */
  refused?: { passes: number; message: string; again: boolean }
}

/** A pass that makes room for the prompt. */
export interface RoomPass {
  /** `strategy`: the strategy's own window, or the token budget when it has none. */
  window: 'strategy' | 'tokenBudget'
  /** The view's token budget that makes the prompt fit, for a pass that writes a summary and one that does not. */
  tokenBudget: { withSummary: number; withoutSummary: number }
}

export type FitStep =
  | { kind: 'call'; promptTokens: number }
  | { kind: 'clear' }
  | ({ kind: 'compact' } & RoomPass)
  | ({ kind: 'inTurn' } & Omit<RoomPass, 'window'>)
  | { kind: 'overflow'; message: string }

/**
 * The next step of fitting a prompt: call the model, make room first, or give up (413
 * `context_overflow`). Passes count the pending user message as the newest turn, so every stored
 * turn may be covered. The order: a clearing of old tool results when the strategy clears, the
 * strategy's own window, then a token budget sized to the room left, then a clearing (`keep: 3`)
 * when the strategy does not clear, then a pass inside the newest turn (an agent's loop), twice;
 * only then the 413. After an upstream refusal: one pass to half the prompt's size, then one
 * inside the newest turn, then one more call.
 *
 * @example
 * const step = planPromptFit({ budget: 7168, parts, canCompact: true, summaryReserve: 1024, passes: 0 })
 * if (step.kind === 'compact') await compactWith(step)
 */
export function planPromptFit(state: FitState): FitStep {
  const total = promptTokens(state.parts)
  const { budget, parts, refused } = state
  if (refused) {
    if (refused.again) return overflow(`the model still refused the prompt as too long: ${refused.message}`)
    if (!state.canCompact) {
      return overflow(`the model refused the prompt as too long (${refused.message}) and compaction is off for this turn`)
    }
    if (refused.passes === 0) return room('tokenBudget', Math.floor(total / 2), state)
    if (refused.passes === 1)
      return { kind: 'inTurn', tokenBudget: room('tokenBudget', Math.floor(total / 2), state).tokenBudget }
    return { kind: 'call', promptTokens: total }
  }
  if (total <= budget) return { kind: 'call', promptTokens: total }
  if (!state.canCompact) {
    return overflow(`the prompt needs ${total} tokens, the budget is ${budget}, and compaction is off for this turn`)
  }
  const fixed = fixedTokens(parts)
  if (fixed > budget) return overflow(`the new message alone needs ${fixed} tokens; the budget for a prompt is ${budget}`)
  const clearing = state.clearing ?? 'lastResort'
  if (clearing === 'first' && !state.cleared) return { kind: 'clear' }
  if (state.passes === 0) return room('strategy', budget, state)
  if (state.passes === 1) return room('tokenBudget', budget, state)
  if (clearing === 'lastResort' && !state.cleared) return { kind: 'clear' }
  if ((state.inTurn ?? 0) < 2) return { kind: 'inTurn', tokenBudget: room('tokenBudget', budget, state).tokenBudget }
  return overflow(`the prompt needs ${total} tokens even after compaction; the budget is ${budget}`)
}

/**
 * A pass sized so that the prompt fits `target`: the view may keep `target` less what no pass can
 * shrink, plus the stored system message (it is part of the view's tokens but is replaced in the
 * prompt), less the summary's reserve when the pass writes one.
 */
function room(window: RoomPass['window'], target: number, state: FitState): { kind: 'compact' } & RoomPass {
  const viewRoom = target - fixedTokens(state.parts) + state.parts.storedSystemTokens
  return {
    kind: 'compact',
    window,
    tokenBudget: {
      withSummary: Math.max(1, viewRoom - state.summaryReserve),
      withoutSummary: Math.max(1, viewRoom),
    },
  }
}

const overflow = (message: string): FitStep => ({ kind: 'overflow', message })
