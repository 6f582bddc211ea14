import { describe, expect, it } from 'vitest'
import { formatProblem } from '../problem'
import { fires, triggerProblem as problemOf, TRIGGER_LIMITS, type Trigger, triggers } from '.'

const triggerProblem = (input: unknown) => {
  const problem = problemOf(input)
  return problem && formatProblem('trigger', problem)
}

const at = (turns: number, tokens: number) => ({ turns, tokens })

describe('triggers', () => {
  it('turnCount fires when turns are greater than n', () => {
    expect(fires(triggers.turnCount(2), at(2, 0))).toBe(false)
    expect(fires(triggers.turnCount(2), at(3, 0))).toBe(true)
  })

  it('tokenCount fires when tokens are at least t', () => {
    expect(fires(triggers.tokenCount(100), at(0, 99))).toBe(false)
    expect(fires(triggers.tokenCount(100), at(0, 100))).toBe(true)
  })

  it('anyOf fires when one does, allOf when all do', () => {
    const one = triggers.turnCount(5)
    const two = triggers.tokenCount(50)
    expect(fires(triggers.anyOf(one, two), at(1, 60))).toBe(true)
    expect(fires(triggers.anyOf(one, two), at(1, 10))).toBe(false)
    expect(fires(triggers.allOf(one, two), at(6, 10))).toBe(false)
    expect(fires(triggers.allOf(one, two), at(6, 60))).toBe(true)
  })

  it('contextFraction fires when the calibrated tokens reach f of the prompt budget', () => {
    const model = (ratio: number) => ({ promptBudget: 1000, ratio })
    expect(fires(triggers.contextFraction(0.6), { ...at(0, 599), model: model(1) })).toBe(false)
    expect(fires(triggers.contextFraction(0.6), { ...at(0, 600), model: model(1) })).toBe(true)
    // The model counts twice what we estimate: it fires at half the estimate.
    expect(fires(triggers.contextFraction(0.6), { ...at(0, 300), model: model(2) })).toBe(true)
    expect(fires(triggers.contextFraction(0.6), { ...at(0, 1000), model: model(0.5) })).toBe(false)
    expect(fires(triggers.contextFraction(1), { ...at(0, 1000), model: model(1) })).toBe(true)
    expect(() => fires(triggers.contextFraction(0.5), at(0, 1))).toThrow('needs the model')
  })

  it('always fires, even on an empty view', () => {
    expect(fires(triggers.always(), at(0, 0))).toBe(true)
  })

  it('refuse bad arguments with the field and the reason', () => {
    expect(() => triggers.turnCount(0)).toThrow('trigger.turnCount: must be an integer ≥ 1')
    expect(() => triggers.tokenCount(1.5)).toThrow('trigger.tokenCount: must be an integer ≥ 1')
    expect(() => triggers.anyOf()).toThrow('trigger.anyOf: must be a list of 1 to 16 triggers')
    for (const f of [0, -0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => triggers.contextFraction(f)).toThrow('trigger.contextFraction: must be a number with 0 < f ≤ 1')
    }
    expect(triggerProblem({ contextFraction: '0.6' })).toBe('trigger.contextFraction: must be a number with 0 < f ≤ 1')
    expect(triggerProblem({ anyOf: [{ contextFraction: 0.6 }, { turnCount: 3 }] })).toBeNull()
  })
})

describe('triggerProblem', () => {
  it('accepts valid nested triggers', () => {
    expect(triggerProblem({ anyOf: [{ turnCount: 3 }, { allOf: [{ tokenCount: 9 }, { always: true }] }] })).toBeNull()
  })

  it.each([
    [null, 'trigger: must be an object'],
    [[], 'trigger: must be an object'],
    [{}, 'trigger: must have exactly one of turnCount, tokenCount, contextFraction, anyOf, allOf, always'],
    [
      { turnCount: 1, tokenCount: 1 },
      'trigger: must have exactly one of turnCount, tokenCount, contextFraction, anyOf, allOf, always',
    ],
    [{ turnCount: -1 }, 'trigger.turnCount: must be an integer ≥ 1'],
    [{ turnCount: Number.NaN }, 'trigger.turnCount: must be an integer ≥ 1'],
    [{ tokenCount: '5' }, 'trigger.tokenCount: must be an integer ≥ 1'],
    [{ always: false }, 'trigger.always: must be true'],
    [{ sometimes: true }, 'trigger: unknown trigger "sometimes"'],
    [{ anyOf: [{ turnCount: 1 }, { tokenCount: 0 }] }, 'trigger.anyOf[1].tokenCount: must be an integer ≥ 1'],
  ])('reports %j as %s', (input, message) => {
    expect(triggerProblem(input)).toBe(message)
  })

  it('refuses nesting deeper than the limit and lists wider than it', () => {
    let deep: Trigger = { always: true }
    for (let i = 0; i < TRIGGER_LIMITS.depth; i++) deep = { anyOf: [deep] }
    expect(triggerProblem(deep)).toMatch(/nested deeper than 8 levels/)
    const wide = { allOf: Array.from({ length: TRIGGER_LIMITS.items + 1 }, () => ({ always: true })) }
    expect(triggerProblem(wide)).toBe('trigger.allOf: must be a list of 1 to 16 triggers')
  })
})
