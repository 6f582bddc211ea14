import { describe, expect, it } from 'vitest'
import { allSeqs, concatColumns, newestTurnSeqs, PackedColumns, pickColumns, summaryInNewestTurn } from './columns'

const push = (view: PackedColumns, seq: number, role: 'system' | 'user' | 'assistant' | 'tool' = 'user', synthetic = false) =>
  view.push({ seq, tokens: seq * 10, role, synthetic })

describe('packed view columns', () => {
  it('answer what was pushed, role and synthetic flag included', () => {
    const view = new PackedColumns(2)
    push(view, 1, 'system')
    push(view, 2, 'tool')
    push(view, 3, 'assistant', true)
    expect(view.length).toBe(3)
    expect([0, 1, 2].map((p) => [view.seq(p), view.tokens(p), view.role(p), view.synthetic(p)])).toEqual([
      [1, 10, 'system', false],
      [2, 20, 'tool', false],
      [3, 30, 'assistant', true],
    ])
  })

  it('keep a prefix as it was while events are appended, across growth', () => {
    const view = new PackedColumns(4)
    for (let seq = 1; seq <= 3; seq++) push(view, seq)
    const before = view.prefix()
    for (let seq = 4; seq <= 100; seq++) push(view, seq, 'assistant') // grows the arrays several times
    expect(before.length).toBe(3)
    expect([...allSeqs(before)]).toEqual([1, 2, 3])
    expect(before.role(2)).toBe('user')
    expect(view.length).toBe(100)
    expect(view.bytes).toBe(128 * 9)
  })

  it('concatenate and pick positions as views of their own', () => {
    const a = new PackedColumns()
    const b = new PackedColumns()
    push(a, 1)
    push(a, 2)
    push(b, 7, 'tool')
    const both = concatColumns(a, b)
    expect([...allSeqs(both)]).toEqual([1, 2, 7])
    expect(both.role(2)).toBe('tool')
    expect([...allSeqs(pickColumns(both, Int32Array.of(2, 0)))]).toEqual([7, 1])
  })
})

describe('the newest turn', () => {
  it('runs from the last user message compaction did not write to the end; none without a turn', () => {
    const view = new PackedColumns()
    push(view, 1, 'user')
    push(view, 2, 'assistant')
    push(view, 3, 'user')
    push(view, 4, 'assistant')
    push(view, 5, 'tool')
    expect([...newestTurnSeqs(view)]).toEqual([3, 4, 5])
    expect(summaryInNewestTurn(view)).toBe(false)
    push(view, 6, 'user', true) // a summary turn is not the user's
    expect([...newestTurnSeqs(view)]).toEqual([3, 4, 5, 6])
    expect(summaryInNewestTurn(view)).toBe(true)
    const noTurn = new PackedColumns()
    push(noTurn, 1, 'assistant')
    expect([...newestTurnSeqs(noTurn)]).toEqual([])
  })
})
