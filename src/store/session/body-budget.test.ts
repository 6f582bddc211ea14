import { describe, expect, it } from 'vitest'
import { atSeq, defaultEstimator, type MessageEvent, newMessageEvent } from '../../core'
import { BodyBudget } from './body-budget'
import { type ViewEntry, viewEntry } from './log'

const event = (seq: number, content: string): MessageEvent =>
  atSeq(newMessageEvent({ id: `e${seq}`, message: { role: 'user', content }, timestamp: 't' }, defaultEstimator), seq)
const entryOf = (e: MessageEvent): ViewEntry => viewEntry({ ...e, role: e.message.role })

describe('BodyBudget', () => {
  it('keeps small events whole, never big ones, within a total budget', () => {
    const bodies = new BodyBudget({ perEvent: 10, total: 25 })
    const [small, big, a, b] = [event(1, '123456789'), event(2, 'x'.repeat(11)), event(3, '1234567890'), event(4, '1234567890')]
    const entries = [small, big, a, b].map(entryOf)
    for (const [i, e] of [small, big, a, b].entries()) bodies.keep(entries[i]!, e)
    expect(entries.map((e) => e.full?.id ?? null)).toEqual(['e1', null, 'e3', null]) // 9 + 10 fit in 25; 10 more would not
  })

  it('frees the share of entries that left the view', () => {
    const bodies = new BodyBudget({ perEvent: 10, total: 20 })
    const [a, b, c] = [event(1, '1234567890'), event(2, '1234567890'), event(3, '1234567890')]
    const entries = [a, b, c].map(entryOf)
    bodies.keep(entries[0]!, a)
    bodies.keep(entries[1]!, b)
    bodies.keep(entries[2]!, c)
    expect(entries[2]!.full).toBeUndefined()
    bodies.recount([entries[1]!]) // a boundary covered the first one
    bodies.keep(entries[2]!, c)
    expect(entries[2]!.full).toBe(c)
  })
})
