import { describe, expect, it } from 'vitest'
import { assistant, events, idString, planOf, sequenced, system, user } from '../testing'
import type { Window } from '../windows'
import { turnSafeCut } from '.'

const plan = (notation: string, window: Window, summarizing = false) =>
  planOf(sequenced(events(notation)), { window, summarizing })

describe('turnSafeCut', () => {
  it('keeps a cut that is already at a turn start', () => {
    expect(turnSafeCut(2, 6, [0, 2, 4])).toBe(2)
  })
  it('moves a mid-turn cut forward to the next turn start', () => {
    expect(turnSafeCut(3, 6, [0, 2, 4])).toBe(4)
  })
  it('moves back to the newest turn when there is no later turn start or the cut covers all', () => {
    expect(turnSafeCut(5, 6, [0, 2, 4])).toBe(4)
    expect(turnSafeCut(6, 6, [0, 2, 4])).toBe(4)
  })
  it('is 0 for an empty conversation', () => {
    expect(turnSafeCut(0, 0, [])).toBe(0)
  })
})

describe('planPass', () => {
  it('covers the conversation before the cut and preserves the rest', () => {
    const p = plan('S1 U1 A1 U2 A2', { lastTurns: 1 })
    expect(p.kind).toBe('cut')
    if (p.kind !== 'cut') return
    expect(idString(p.pinned)).toBe('S1')
    expect(idString(p.covered)).toBe('U1 A1')
    expect(idString(p.preserved)).toBe('U2 A2')
  })

  it('pins the latest system message first, then the preamble, and covers superseded system messages', () => {
    const p = plan('S1 A0 U1 A1 S2 U2 A2 U3 A3', { lastTurns: 1 })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(idString(p.pinned)).toBe('S2 A0')
    expect(idString(p.covered)).toBe('S1 U1 A1 U2 A2')
    expect(idString(p.preserved)).toBe('U3 A3')
  })

  it('pins the prior summary without a summarizer and covers it with one', () => {
    const without = plan('Σ1 U1 A1 U2 A2', { lastTurns: 1 })
    const withOne = plan('Σ1 U1 A1 U2 A2', { lastTurns: 1 }, true)
    if (without.kind !== 'cut' || withOne.kind !== 'cut') throw new Error('expected cuts')
    expect(idString(without.pinned)).toBe('Σ1')
    expect(idString(without.covered)).toBe('U1 A1')
    expect(idString(withOne.pinned)).toBe('')
    expect(idString(withOne.covered)).toBe('Σ1 U1 A1')
    expect(idString(withOne.coveredConversation)).toBe('U1 A1')
    expect(idString(withOne.priorSummary)).toBe('Σ1')
  })

  it('takes pinned tokens off a token budget first', () => {
    // Pinned preamble of 10 leaves 10 of 20: only the newest turn (8) fits.
    const view = sequenced([assistant('A0', 10), user('U1', 4), assistant('A1', 4), user('U2', 4), assistant('A2', 4)])
    const p = planOf(view, { window: { tokenBudget: 20 }, summarizing: false })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(idString(p.preserved)).toBe('U2 A2')
  })

  it('changes nothing when there is no turn to cut at, even with superseded system messages', () => {
    expect(plan('S1 U1 A1 S2 A1b', { lastEvents: 1 })).toEqual({ kind: 'unchanged', reason: 'nothing_to_cover' })
    expect(plan('A0 A1', { lastEvents: 1 })).toEqual({ kind: 'unchanged', reason: 'nothing_to_cover' })
    expect(plan('', { lastEvents: 1 })).toEqual({ kind: 'unchanged', reason: 'nothing_to_cover' })
  })

  it('keeps a system message that only appears later pinned, never in the conversation', () => {
    const view = sequenced([user('U1'), assistant('A1'), system('S'), user('U2'), assistant('A2')])
    const p = planOf(view, { window: { lastEvents: 2 }, summarizing: false })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(idString(p.pinned)).toBe('S')
    expect(idString(p.preserved)).toBe('U2 A2')
  })
})

describe('planPass with a pending user message', () => {
  const view = sequenced(events('S1 U1 A1 U2 A2'))
  const pending = [user('Unew', 5)]

  it('counts it as the newest turn, so every stored turn may be covered', () => {
    const p = planOf(view, { window: { lastTurns: 1 }, summarizing: false, pending })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(idString(p.covered)).toBe('U1 A1 U2 A2')
    expect(idString(p.preserved)).toBe('')
    expect(idString(p.pinned)).toBe('S1')
  })

  it('never covers the pending message itself, nor names it', () => {
    const p = planOf(view, { window: { tokenBudget: 1 }, summarizing: false, pending })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(p.preserved).toEqual([])
    expect([...p.pinned, ...p.covered].some((e) => e.id === 'Unew')).toBe(false)
  })

  it('without one, the newest stored turn is kept', () => {
    const p = planOf(view, { window: { lastTurns: 1 }, summarizing: false })
    if (p.kind !== 'cut') throw new Error('expected a cut')
    expect(idString(p.preserved)).toBe('U2 A2')
  })

  it('changes nothing when nothing is stored but a preamble', () => {
    expect(planOf(sequenced(events('S1 A0')), { window: { lastTurns: 1 }, summarizing: false, pending })).toEqual({
      kind: 'unchanged',
      reason: 'nothing_to_cover',
    })
  })
})
