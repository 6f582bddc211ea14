import { describe, expect, it } from 'vitest'
import { formatProblem } from '../problem'
import { cutWindow, DEFAULT_WINDOW, windowProblem as problemOf, rawCut, windows } from '.'

const windowProblem = (input: unknown) => {
  const problem = problemOf(input)
  return problem && formatProblem('window', problem)
}

// Three turns of two events each, one token per event.
const weights = (...tokens: number[]) => ({ size: tokens.length, tokens: (i: number) => tokens[i]! })
const conversation = { ...weights(1, 1, 1, 1, 1, 1), turnStarts: [0, 2, 4], pinnedTokens: 0 }

describe('rawCut', () => {
  it('lastEvents(n) keeps the last n events', () => {
    expect(rawCut(windows.lastEvents(3), conversation)).toBe(3)
    expect(rawCut(windows.lastEvents(10), conversation)).toBe(0)
    expect(DEFAULT_WINDOW).toEqual({ lastEvents: 20 })
    expect(windows.lastEvents()).toEqual({ lastEvents: 20 })
  })

  it('lastTurns(n) cuts at the start of the n-th newest turn, or keeps all when there are fewer', () => {
    expect(rawCut(windows.lastTurns(1), conversation)).toBe(4)
    expect(rawCut(windows.lastTurns(2), conversation)).toBe(2)
    expect(rawCut(windows.lastTurns(4), conversation)).toBe(0)
  })

  it('tokenBudget(t) keeps the longest suffix that fits after the pinned tokens', () => {
    const weighted = { ...weights(5, 5, 2, 3, 4), turnStarts: [0, 2], pinnedTokens: 0 }
    expect(rawCut(windows.tokenBudget(9), weighted)).toBe(2) // 2+3+4 = 9
    expect(rawCut(windows.tokenBudget(8), weighted)).toBe(3)
    expect(rawCut(windows.tokenBudget(9), { ...weighted, pinnedTokens: 2 })).toBe(3)
    expect(rawCut(windows.tokenBudget(100), weighted)).toBe(0)
  })

  it('tokenBudget(t) cuts everything when not even the last event fits', () => {
    expect(rawCut(windows.tokenBudget(3), { ...weights(1, 9), turnStarts: [0], pinnedTokens: 0 })).toBe(2)
    expect(rawCut(windows.tokenBudget(3), { ...weights(1, 1), turnStarts: [0], pinnedTokens: 5 })).toBe(2)
  })
})

describe('cutWindow', () => {
  it('makes contextFraction(f) a tokenBudget of ⌊f × budget ÷ ratio⌋ estimated tokens, at least 1', () => {
    expect(cutWindow(windows.contextFraction(0.3), { promptBudget: 7168, ratio: 1 })).toEqual({ tokenBudget: 2150 })
    // The model counts twice what we estimate: half as many estimated tokens fit.
    expect(cutWindow(windows.contextFraction(0.3), { promptBudget: 7168, ratio: 2 })).toEqual({ tokenBudget: 1075 })
    expect(cutWindow(windows.contextFraction(1), { promptBudget: 1000, ratio: 0.5 })).toEqual({ tokenBudget: 2000 })
    expect(cutWindow(windows.contextFraction(1e-9), { promptBudget: 1000, ratio: 3 })).toEqual({ tokenBudget: 1 })
    expect(cutWindow(windows.lastTurns(2), undefined)).toEqual({ lastTurns: 2 })
    expect(() => cutWindow(windows.contextFraction(0.5), undefined)).toThrow('needs the model')
  })
})

describe('window validation', () => {
  it.each([
    [{ lastEvents: 0 }, 'window.lastEvents: must be an integer ≥ 1'],
    [{ lastTurns: -2 }, 'window.lastTurns: must be an integer ≥ 1'],
    [{ tokenBudget: 2.5 }, 'window.tokenBudget: must be an integer ≥ 1'],
    [{ tokenBudget: Number.POSITIVE_INFINITY }, 'window.tokenBudget: must be an integer ≥ 1'],
    [{ lastEvents: 1, lastTurns: 1 }, 'window: must have exactly one of lastEvents, lastTurns, tokenBudget, contextFraction'],
    [{ contextFraction: 0 }, 'window.contextFraction: must be a number with 0 < f ≤ 1'],
    [{ contextFraction: 1.01 }, 'window.contextFraction: must be a number with 0 < f ≤ 1'],
    [{ contextFraction: -0.5 }, 'window.contextFraction: must be a number with 0 < f ≤ 1'],
    [{ contextFraction: '0.5' }, 'window.contextFraction: must be a number with 0 < f ≤ 1'],
    [{ contextFraction: Number.NaN }, 'window.contextFraction: must be a number with 0 < f ≤ 1'],
    [{ everything: 1 }, 'window: unknown window "everything"'],
    ['lastEvents', 'window: must be an object'],
  ])('reports %j as %s', (input, message) => {
    expect(windowProblem(input)).toBe(message)
  })

  it('accepts fractions up to and including 1', () => {
    expect(windowProblem({ contextFraction: 1 })).toBeNull()
    expect(windowProblem({ contextFraction: 0.001 })).toBeNull()
  })

  it('the builders throw the same messages', () => {
    expect(() => windows.lastTurns(0)).toThrow('window.lastTurns: must be an integer ≥ 1')
    expect(() => windows.tokenBudget(Number.NaN)).toThrow('window.tokenBudget: must be an integer ≥ 1')
    expect(windows.tokenBudget(10)).toEqual({ tokenBudget: 10 })
  })
})
