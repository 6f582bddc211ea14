import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { atSeq, type Role } from '../events'
import { msg } from '../testing'
import { advanceStats, EMPTY_STATS, statsOf } from './stats'

const arbitraryMessages = fc.array(
  fc.record({ role: fc.constantFrom<Role>('system', 'user', 'assistant', 'tool'), tokens: fc.nat(50), synthetic: fc.boolean() }),
  { maxLength: 40 },
)

describe('view stats', () => {
  it('advanced by appended messages, equal the stats of the longer view', () => {
    fc.assert(
      fc.property(arbitraryMessages, arbitraryMessages, (head, tail) => {
        const events = [...head, ...tail].map((d, i) =>
          atSeq(
            msg(`m${i}`, { role: d.role, content: 'x' }, { tokens: d.tokens, synthetic: d.synthetic && d.role !== 'system' }),
            i + 1,
          ),
        )
        const view = events.slice(0, head.length)
        expect(advanceStats(statsOf(view), events.slice(head.length))).toEqual(statsOf(events))
      }),
    )
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
