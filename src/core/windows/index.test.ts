import { describe, expect, it } from 'vitest'
import { formatProblem } from '../problem'
import { DEFAULT_WINDOW, windowProblem as problemOf, rawCut, windows } from '.'

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

describe('window validation', () => {
  it.each([
    [{ lastEvents: 0 }, 'window.lastEvents: must be an integer ≥ 1'],
    [{ lastTurns: -2 }, 'window.lastTurns: must be an integer ≥ 1'],
    [{ tokenBudget: 2.5 }, 'window.tokenBudget: must be an integer ≥ 1'],
    [{ tokenBudget: Number.POSITIVE_INFINITY }, 'window.tokenBudget: must be an integer ≥ 1'],
    [{ lastEvents: 1, lastTurns: 1 }, 'window: must have exactly one of lastEvents, lastTurns, tokenBudget'],
    [{ everything: 1 }, 'window: unknown window "everything"'],
    ['lastEvents', 'window: must be an object'],
  ])('reports %j as %s', (input, message) => {
    expect(windowProblem(input)).toBe(message)
  })

  it('the builders throw the same messages', () => {
    expect(() => windows.lastTurns(0)).toThrow('window.lastTurns: must be an integer ≥ 1')
    expect(() => windows.tokenBudget(Number.NaN)).toThrow('window.tokenBudget: must be an integer ≥ 1')
    expect(windows.tokenBudget(10)).toEqual({ tokenBudget: 10 })
  })
})
