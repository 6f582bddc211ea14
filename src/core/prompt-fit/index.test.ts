import { describe, expect, it } from 'vitest'
import { type FitState, planPromptFit, promptTokens } from '.'

/** A view of 900 tokens with a 50-token system message; the new user message has 40. */
const parts = { viewTokens: 900, storedSystemTokens: 50, newSystemTokens: null, addedTokens: 40 }
const state = (overrides: Partial<FitState> = {}): FitState => ({
  budget: 1000,
  parts,
  canCompact: true,
  summaryReserve: 100,
  passes: 0,
  ...overrides,
})

describe('promptTokens', () => {
  it('is the view with its system message replaced by the request’s, plus the new message', () => {
    expect(promptTokens(parts)).toBe(940)
    expect(promptTokens({ ...parts, newSystemTokens: 20 })).toBe(910)
    expect(promptTokens({ viewTokens: 0, storedSystemTokens: 0, newSystemTokens: 7, addedTokens: 3 })).toBe(10)
  })
})

describe('planPromptFit', () => {
  it('calls the model when the prompt fits the budget (the budget itself included)', () => {
    expect(planPromptFit(state())).toEqual({ kind: 'call', promptTokens: 940 })
    expect(planPromptFit(state({ budget: 940 }))).toEqual({ kind: 'call', promptTokens: 940 })
  })

  it('compacts with the strategy’s window, then a token budget, then clears, then passes inside the newest turn twice, then gives up', () => {
    const over = { budget: 600 }
    // The view may keep 600 - (50 + 40) + 50 = 560 tokens: its own system message stays in it.
    const room = { withSummary: 460, withoutSummary: 560 }
    expect(planPromptFit(state(over))).toEqual({ kind: 'compact', window: 'strategy', tokenBudget: room })
    expect(planPromptFit(state({ ...over, passes: 1 }))).toEqual({ kind: 'compact', window: 'tokenBudget', tokenBudget: room })
    expect(planPromptFit(state({ ...over, passes: 2 }))).toEqual({ kind: 'clear' })
    expect(planPromptFit(state({ ...over, passes: 2, cleared: true }))).toEqual({ kind: 'inTurn', tokenBudget: room })
    expect(planPromptFit(state({ ...over, passes: 2, cleared: true, inTurn: 1 }))).toEqual({ kind: 'inTurn', tokenBudget: room })
    expect(planPromptFit(state({ ...over, passes: 2, cleared: true, inTurn: 2 }))).toEqual({
      kind: 'overflow',
      message: 'the prompt needs 940 tokens even after compaction; the budget is 600',
    })
  })

  it('clears first when the strategy clears', () => {
    const over = { budget: 600, clearing: 'first' as const }
    expect(planPromptFit(state(over))).toEqual({ kind: 'clear' })
    expect(planPromptFit(state({ ...over, cleared: true }))).toMatchObject({ kind: 'compact', window: 'strategy' })
    expect(planPromptFit(state({ ...over, cleared: true, passes: 2 }))).toMatchObject({ kind: 'inTurn' })
  })

  it('sizes the room for the request’s own system message', () => {
    const step = planPromptFit(state({ budget: 600, parts: { ...parts, newSystemTokens: 200 } }))
    // 600 - (200 + 40) + 50 stored = 410.
    expect(step).toEqual({ kind: 'compact', window: 'strategy', tokenBudget: { withSummary: 310, withoutSummary: 410 } })
  })

  it('never asks for a token budget below 1', () => {
    const step = planPromptFit(state({ budget: 95, summaryReserve: 1000 }))
    expect(step).toEqual({ kind: 'compact', window: 'strategy', tokenBudget: { withSummary: 1, withoutSummary: 55 } })
  })

  it('overflows when compaction is off, or when the new message alone is over the budget', () => {
    expect(planPromptFit(state({ budget: 600, canCompact: false }))).toEqual({
      kind: 'overflow',
      message: 'the prompt needs 940 tokens, the budget is 600, and compaction is off for this turn',
    })
    expect(planPromptFit(state({ budget: 80 }))).toEqual({
      kind: 'overflow',
      message: 'the new message alone needs 90 tokens; the budget for a prompt is 80',
    })
  })

  it('after an upstream refusal: one pass to half the prompt, one inside the newest turn, one more call, then gives up', () => {
    const refused = { passes: 0, message: 'too long', again: false }
    // Half of 940 is 470; the view may keep 470 - 90 + 50 = 430.
    expect(planPromptFit(state({ refused }))).toEqual({
      kind: 'compact',
      window: 'tokenBudget',
      tokenBudget: { withSummary: 330, withoutSummary: 430 },
    })
    expect(planPromptFit(state({ refused: { ...refused, passes: 1 } }))).toEqual({
      kind: 'inTurn',
      tokenBudget: { withSummary: 330, withoutSummary: 430 },
    })
    expect(planPromptFit(state({ refused: { ...refused, passes: 2 } }))).toEqual({ kind: 'call', promptTokens: 940 })
    expect(planPromptFit(state({ refused: { ...refused, passes: 2, again: true } }))).toEqual({
      kind: 'overflow',
      message: 'the model still refused the prompt as too long: too long',
    })
    expect(planPromptFit(state({ refused, canCompact: false }))).toEqual({
      kind: 'overflow',
      message: 'the model refused the prompt as too long (too long) and compaction is off for this turn',
    })
  })
})
