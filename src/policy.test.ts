import { describe, expect, it } from 'vitest'
import { defaultPolicy, parsePolicy } from './policy'

describe('parsePolicy (COMPACTION_POLICY)', () => {
  it('accepts a valid policy and defaults the strategy', () => {
    expect(parsePolicy('{"trigger":{"tokenCount":6000},"strategy":{"window":{"tokenBudget":3000},"summarizer":{}}}')).toEqual({
      policy: { trigger: { tokenCount: 6000 }, strategy: { window: { tokenBudget: 3000 }, summarizer: {} } },
    })
    expect(parsePolicy('{"trigger":{"always":true}}')).toEqual({ policy: { trigger: { always: true }, strategy: {} } })
  })

  it.each([
    ['{', 'not valid JSON'],
    ['[]', 'must be an object { trigger, strategy }'],
    ['{"trigger":{"turnCount":0}}', 'trigger.turnCount: must be an integer ≥ 1'],
    ['{"trigger":{"always":true},"strategy":{"window":{"lastTurns":-1}}}', 'strategy.window.lastTurns: must be an integer ≥ 1'],
    ['{"trigger":{"always":true},"extra":1}', 'extra: unknown field'],
    ['{"trigger":{"always":true},"strategy":{"windows":{}}}', 'strategy.windows: unknown field'],
  ])('refuses %s: %s', (json, problem) => {
    expect(parsePolicy(json)).toEqual({ problem })
  })
})

describe('defaultPolicy', () => {
  it('fires at 60% of the prompt budget, keeps 30%, and summarizes when a model is configured', () => {
    expect(defaultPolicy(7168, true)).toEqual({
      trigger: { tokenCount: 4300 },
      strategy: { window: { tokenBudget: 2150 }, summarizer: {} },
    })
    expect(defaultPolicy(7168, false).strategy.summarizer).toBeUndefined()
  })
})
