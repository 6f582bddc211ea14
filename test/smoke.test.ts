import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { ArrayStore, compact, defaultEstimator, newMessageEvent, project } from '../src/core'

describe('inside workerd', () => {
  it('runs the compaction core with the default tokenizer', async () => {
    const store = new ArrayStore()
    const message = (id: string, role: 'user' | 'assistant') =>
      newMessageEvent(
        { id, message: { role, content: `${role} says ${id}` }, timestamp: new Date().toISOString() },
        defaultEstimator,
      )
    store.appendNow(['u1', 'a1', 'u2', 'a2'].map((id) => message(id, id.startsWith('u') ? 'user' : 'assistant')))
    const result = await compact(
      { session: { id: 's', metadata: {} }, strategy: { window: { lastTurns: 1 } } },
      { store, estimator: defaultEstimator, newId: () => crypto.randomUUID(), now: () => new Date().toISOString() },
    )
    expect(store.eventsAt(result.covered).map((e) => e.id)).toEqual(['u1', 'a1'])
    expect(project(store.log).map((e) => e.id)).toEqual(['u2', 'a2'])
    expect(store.log[0]!.tokens).toBeGreaterThan(0)
  })

  it('serves the Worker: unknown routes get the contract’s error shape', async () => {
    const response = await exports.default.fetch('http://example.com/nope')
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'no route for GET /nope' } })
  })
})
