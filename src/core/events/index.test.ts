import { describe, expect, it } from 'vitest'
import { countingEstimator } from '../tokens'
import { defaultEstimator } from '../tokens/gpt-tokenizer'
import { isTurnStart, namedIds } from '.'
import { newCompactionEvent, newMessageEvent } from './new-event'

describe('newMessageEvent', () => {
  it('estimates the event text once and carries the estimate', () => {
    const estimator = countingEstimator(defaultEstimator)
    const message = { role: 'tool' as const, content: null, toolResponses: [{ id: 'c', name: 'f', data: 'x'.repeat(50) }] }
    const event = newMessageEvent({ id: 'e1', message, timestamp: 't' }, estimator)
    expect(estimator.calls).toBe(1)
    // 'Tool [responses: f → xxx…]' in cl100k_base.
    expect(event.tokens).toBe(15)
    expect(event).toMatchObject({ type: 'MESSAGE', id: 'e1', synthetic: false, metadata: {} })
  })
})

describe('turn starts', () => {
  it('are non-synthetic user messages only', () => {
    const user = newMessageEvent({ id: 'u', message: { role: 'user', content: 'hi' }, timestamp: 't' }, defaultEstimator)
    expect(isTurnStart(user)).toBe(true)
    expect(isTurnStart({ ...user, synthetic: true })).toBe(false)
    const reply = newMessageEvent({ id: 'a', message: { role: 'assistant', content: 'hi' }, timestamp: 't' }, defaultEstimator)
    expect(isTurnStart(reply)).toBe(false)
  })
})

describe('boundaries', () => {
  it('name pinned, then summary, then preserved ids, with zero tokens', () => {
    const boundary = { pinned: ['s'], summary: ['x', 'y'], preserved: ['u', 'a'], coveredEventCount: 2, tokensEstimatedSaved: 5 }
    const event = newCompactionEvent({ id: 'b', timestamp: 't' }, boundary)
    expect(event.tokens).toBe(0)
    expect(namedIds(event.boundary)).toEqual(['s', 'x', 'y', 'u', 'a'])
  })
})
