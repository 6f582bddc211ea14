import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { atSeq, type Role } from '../events'
import { viewPins } from '../pins'
import { msg } from '../testing'
import { advanceStats, EMPTY_STATS, statsOf } from './stats'

const arbitraryMessages = fc.array(
  fc.record({
    role: fc.constantFrom<Role>('system', 'user', 'assistant', 'tool'),
    tokens: fc.nat(50),
    synthetic: fc.boolean(),
    pinned: fc.boolean(),
  }),
  { maxLength: 40 },
)

describe('view stats', () => {
  it('advanced by appended messages (some pinned), equal the stats of the longer view', () => {
    fc.assert(
      fc.property(arbitraryMessages, arbitraryMessages, (head, tail) => {
        const events = [...head, ...tail].map((d, i) =>
          atSeq(
            msg(`m${i}`, { role: d.role, content: 'x' }, { tokens: d.tokens, synthetic: d.synthetic && d.role !== 'system' }),
            i + 1,
          ),
        )
        const pins = viewPins(
          new Set(events.flatMap((event, i) => ([...head, ...tail][i]!.pinned ? [event.seq] : []))),
          new Set(),
        )
        const view = events.slice(0, head.length)
        expect(advanceStats(statsOf(view, pins), events.slice(head.length), pins)).toEqual(statsOf(events, pins))
      }),
    )
  })

  it('count no turn for a pinned question', () => {
    const events = [
      atSeq(msg('u1', { role: 'user', content: 'the task' }, { tokens: 3 }), 1),
      atSeq(msg('a1', { role: 'assistant', content: 'ok' }, { tokens: 1 }), 2),
      atSeq(msg('u2', { role: 'user', content: 'a question' }, { tokens: 3 }), 3),
    ]
    const pins = viewPins(new Set([1]), new Set())
    expect(statsOf(events, pins).turns).toBe(1)
    expect(advanceStats(EMPTY_STATS, events, pins).turns).toBe(1)
    expect(statsOf(events).turns).toBe(2)
  })

  it('count the latest system message only', () => {
    const events = [
      atSeq(msg('s1', { role: 'system', content: 'a' }, { tokens: 10 }), 1),
      atSeq(msg('u1', { role: 'user', content: 'b' }, { tokens: 3 }), 2),
      atSeq(msg('s2', { role: 'system', content: 'c' }, { tokens: 4 }), 3),
    ]
    expect(advanceStats(EMPTY_STATS, events)).toEqual({
      viewEvents: 3,
      viewTokens: 7,
      turns: 1,
      latestSystem: { seq: 3, tokens: 4 },
    })
  })
})
