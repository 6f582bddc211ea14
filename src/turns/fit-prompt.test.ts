import { describe, expect, it } from 'vitest'
import { UNCALIBRATED } from '../core'
import { user } from '../core/testing'
import { planFit } from './fit-prompt'
import type { PromptState } from './session'
import type { PreparedStep } from './step'

const POLICY = { trigger: { contextFraction: 0.6 }, strategy: { window: { lastTurns: 2 } } }

/** A prepared step adding one user message of `added` tokens, with a prompt budget of `budget`. */
function stepOf(options: { added: number; budget: number; ratio?: number; system?: number; tools?: number; policy?: boolean }) {
  const step: PreparedStep = {
    model: { chat: () => Promise.reject(new Error('no call in a plan')) },
    modelName: 'm',
    replyTokens: 100,
    options: {},
    fit: { promptBudget: options.budget, ratio: options.ratio ?? 1 },
    calibration: UNCALIBRATED,
    policy: options.policy === false ? null : POLICY,
    systemEvent: options.system === undefined ? null : user('S', options.system),
    toolsTokens: options.tools ?? 0,
    recallTokens: 0,
    recallRequested: false,
    summaryReserve: 50,
    earlier: [],
    added: [user('U', options.added)],
    replyId: 'R',
  }
  return step
}

const state = (viewTokens: number, storedSystem?: number): PromptState => ({
  policy: null,
  viewTokens,
  calibration: UNCALIBRATED,
  latestSystem: storedSystem === undefined ? null : { tokens: storedSystem, content: 'old' },
})

describe('planFit', () => {
  it('calls the model when the view, the added events and the tools fit the budget', () => {
    expect(planFit(stepOf({ added: 10, budget: 1000, tools: 40 }), state(900), { passes: 0 })).toEqual({
      kind: 'call',
      promptTokens: 950,
    })
    expect(planFit(stepOf({ added: 10, budget: 1000, tools: 41 }), state(950), { passes: 0 }).kind).toBe('compact')
  })

  it('counts the budget in estimate units: a model that counts twice our estimate fits half as many', () => {
    expect(planFit(stepOf({ added: 10, budget: 1000, ratio: 2 }), state(490), { passes: 0 })).toEqual({
      kind: 'call',
      promptTokens: 500,
    })
    expect(planFit(stepOf({ added: 10, budget: 1000, ratio: 2 }), state(491), { passes: 0 }).kind).toBe('compact')
  })

  it('replaces the stored system message with the request’s in the prompt', () => {
    expect(planFit(stepOf({ added: 10, budget: 1000, system: 5 }), state(300, 200), { passes: 0 })).toEqual({
      kind: 'call',
      promptTokens: 300 - 200 + 5 + 10,
    })
  })

  it('takes a seeded history written first as part of the view, which a pass may cover', () => {
    // 600 tokens of history and a 50-token question: alone the added events leave no room to
    // compact (413); written first, the view holds them and a pass can make room.
    const step = { ...stepOf({ added: 0, budget: 600 }), added: [user('H', 600), user('Q', 50)] }
    expect(planFit(step, state(0), { passes: 0 }).kind).toBe('overflow')
    expect(planFit(step, state(0), { passes: 0, ahead: 600 })).toMatchObject({
      kind: 'compact',
      window: 'strategy',
    })
  })

  it('with compaction off, a prompt over budget is a 413 naming the budget', () => {
    const plan = planFit(stepOf({ added: 10, budget: 100, policy: false }), state(200), { passes: 0 })
    expect(plan).toEqual({
      kind: 'overflow',
      message: 'the prompt needs 210 tokens, the budget is 100, and compaction is off for this turn',
    })
  })
})
