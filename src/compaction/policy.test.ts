import { describe, expect, it } from 'vitest'
import { parsePolicyJson } from '../contract/schemas'
import { cutWindow, fires } from '../core'
import { backgroundMode, defaultPolicy, runsInBackground, turnPolicy } from './policy'

const parse = (json: string) => parsePolicyJson(json, 'COMPACTION_POLICY')

describe('COMPACTION_POLICY', () => {
  it('accepts a valid policy and defaults the strategy', () => {
    expect(parse('{"trigger":{"tokenCount":6000},"strategy":{"window":{"tokenBudget":3000},"summarizer":{}}}')).toEqual({
      policy: { trigger: { tokenCount: 6000 }, strategy: { window: { tokenBudget: 3000 }, summarizer: {} } },
    })
    expect(parse('{"trigger":{"always":true}}')).toEqual({ policy: { trigger: { always: true }, strategy: {} } })
  })

  it.each([
    ['{', 'COMPACTION_POLICY: not valid JSON'],
    ['[]', 'COMPACTION_POLICY: Invalid input: expected object, received array'],
    ['{"trigger":{"turnCount":0}}', 'COMPACTION_POLICY.trigger.turnCount: must be an integer ≥ 1'],
    [
      '{"trigger":{"always":true},"strategy":{"window":{"lastTurns":-1}}}',
      'COMPACTION_POLICY.strategy.window.lastTurns: must be an integer ≥ 1',
    ],
    ['{"trigger":{"always":true},"extra":1}', 'COMPACTION_POLICY.extra: unknown field'],
    ['{"trigger":{"always":true},"strategy":{"windows":{}}}', 'COMPACTION_POLICY.strategy.windows: unknown field'],
  ])('refuses %s', (json, problem) => {
    expect(parse(json)).toEqual({ problem })
  })

  it('refuses the summarizer settings the API refuses (it used to accept any object there)', () => {
    const bad = '{"trigger":{"always":true},"strategy":{"summarizer":{"overlapSize":"lots","temperature":1}}}'
    const result = parse(bad)
    expect('problem' in result && result.problem).toContain('COMPACTION_POLICY.strategy.summarizer.overlapSize:')
    expect('problem' in result && result.problem).toContain('COMPACTION_POLICY.strategy.summarizer.temperature: unknown field')
  })
})

describe('turnPolicy', () => {
  const session = { trigger: { turnCount: 3 }, strategy: {} }
  const base = { requested: undefined, session: null, deployment: undefined, summaries: true }

  it('takes the request’s, then the session’s, then the deployment’s, then the built-in one', () => {
    const requested = { trigger: { always: true as const }, strategy: {} }
    expect(turnPolicy({ ...base, requested, session })).toBe(requested)
    expect(turnPolicy({ ...base, requested: false, session })).toBeNull()
    expect(turnPolicy({ ...base, session, deployment: '{"trigger":{"turnCount":9}}' })).toBe(session)
    expect(turnPolicy({ ...base, deployment: '{"trigger":{"turnCount":9}}' })).toEqual({
      trigger: { turnCount: 9 },
      strategy: {},
    })
    expect(turnPolicy(base)).toEqual(defaultPolicy(true))
  })

  it('falls back to the built-in default when COMPACTION_POLICY is not valid', () => {
    expect(turnPolicy({ ...base, deployment: '{"trigger":{"turnCount":"nine"}}' })).toEqual(defaultPolicy(true))
  })
})

describe('defaultPolicy', () => {
  it('fires at 60% of the model’s prompt budget, keeps 30%, and summarizes when a model is configured', () => {
    expect(defaultPolicy(true)).toEqual({
      trigger: { contextFraction: 0.6 },
      strategy: { window: { contextFraction: 0.3 }, summarizer: {} },
    })
    expect(defaultPolicy(false).strategy.summarizer).toBeUndefined()
  })

  it('behaves as before with the default sizes: fires at 60% of 7,168 tokens (4,300.8), keeps 2,150', () => {
    const model = { promptBudget: 8192 - 1024, ratio: 1 }
    const { trigger, strategy } = defaultPolicy(true)
    // The trigger was tokenCount(4300): a fraction of the budget now, the same within a token.
    expect(fires(trigger!, { turns: 1, tokens: 4301, model })).toBe(true)
    expect(fires(trigger!, { turns: 1, tokens: 4300, model })).toBe(false)
    expect(cutWindow(strategy.window!, model)).toEqual({ tokenBudget: 2150 })
  })
})

describe('COMPACTION_BACKGROUND', () => {
  const policy = { trigger: { always: true as const }, strategy: {} }

  it('runs a door’s pass after its answer and a /turns pass in the turn by default; always and never say so for both', () => {
    expect(backgroundMode(undefined)).toBe('doors')
    expect([true, false].map((door) => runsInBackground(policy, backgroundMode(undefined), door))).toEqual([true, false])
    expect([true, false].map((door) => runsInBackground(policy, backgroundMode('always'), door))).toEqual([true, true])
    expect([true, false].map((door) => runsInBackground(policy, backgroundMode(' Never '), door))).toEqual([false, false])
  })

  it('lets a policy’s own background win over the deployment’s', () => {
    expect(runsInBackground({ ...policy, background: false }, 'always', true)).toBe(false)
    expect(runsInBackground({ ...policy, background: true }, 'never', false)).toBe(true)
  })

  it('takes an unknown value as the default, doors', () => {
    expect(backgroundMode('sometimes')).toBe('doors')
  })
})
