import { describe, expect, it } from 'vitest'
import { atSeq, defaultEstimator, type MessageEvent, newMessageEvent } from '../../core'
import { BodyCache } from './body-cache'

const event = (seq: number, chars: number): MessageEvent =>
  atSeq(
    newMessageEvent({ id: `e${seq}`, message: { role: 'user', content: 'x'.repeat(chars) }, timestamp: 't' }, defaultEstimator),
    seq,
  )

describe('the isolate body cache', () => {
  it('shares one budget between owners, dropping the least recently used first', () => {
    const cache = new BodyCache({ perEvent: 100, total: 250 })
    const a = cache.newOwner()
    const b = cache.newOwner()
    cache.keep(a, event(1, 100))
    cache.keep(b, event(1, 100))
    expect(cache.get(a, 1)?.id).toBe('e1') // a's event is now the most recently used
    cache.keep(b, event(2, 100)) // 300 > 250: b's first event, the least recently used, goes
    expect(cache.get(b, 1)).toBeUndefined()
    expect(cache.get(a, 1)?.message.content).toHaveLength(100)
    expect(cache.get(b, 2)?.id).toBe('e2')
    expect(cache.size).toBe(200)
  })

  it('never keeps an event over the per-event limit, and keys events by owner', () => {
    const cache = new BodyCache({ perEvent: 100, total: 1000 })
    const a = cache.newOwner()
    cache.keep(a, event(1, 101))
    expect(cache.get(a, 1)).toBeUndefined()
    cache.keep(a, event(2, 10))
    expect(cache.get(cache.newOwner(), 2)).toBeUndefined()
    expect(cache.size).toBe(10)
  })

  it('agrees with a plain list model of least-recently-used through long churn', () => {
    const cache = new BodyCache({ perEvent: 10, total: 50 })
    const owners = [cache.newOwner(), cache.newOwner()]
    // The model: keys oldest first; a use moves a key to the end; past five events the first go.
    let model: string[] = []
    let random = 7
    const next = (n: number) => {
      random = (random * 48271) % 2147483647
      return random % n
    }
    for (let step = 0; step < 3000; step++) {
      const owner = owners[next(2)]!
      const seq = 1 + next(12)
      const key = `${owner}:${seq}`
      if (next(2) === 0) {
        const found = cache.get(owner, seq) !== undefined
        expect(found, `step ${step}: get ${key}`).toBe(model.includes(key))
        if (found) model = [...model.filter((k) => k !== key), key]
      } else if (!model.includes(key)) {
        cache.keep(owner, event(seq, 10))
        model = [...model, key].slice(-5)
      }
    }
    expect(cache.size).toBe(model.length * 10)
  })
})
