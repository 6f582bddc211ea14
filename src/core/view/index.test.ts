import { describe, expect, it } from 'vitest'
import { assistant, events, idString, sequenced, summary, system, user } from '../testing'
import { analyzeView, viewTokens } from '.'

describe('analyzeView', () => {
  it('takes a view apart into system messages, preamble, prior summary and conversation', () => {
    const view = sequenced([...events('S1 A0 Σ1 U1 A1 S2 U2 C2 T2 A2')])
    const a = analyzeView(view)
    expect(a.latestSystem?.id).toBe('S2')
    expect(idString(a.superseded)).toBe('S1')
    expect(idString(a.preamble)).toBe('A0')
    expect(idString(a.priorSummary)).toBe('Σ1')
    expect(idString(a.conversation)).toBe('U1 A1 U2 C2 T2 A2')
    expect(a.turnStarts).toEqual([0, 2])
    expect(a.turns).toBe(2)
  })

  it('takes an inline system message as conversation: no turn start, not the system prompt', () => {
    const inline = { ...system('I1'), metadata: { inline: true } }
    const view = sequenced([system('S1'), user('U1'), inline, assistant('A1'), user('U2')])
    const a = analyzeView(view)
    expect(a.latestSystem?.id).toBe('S1')
    expect(idString(a.superseded)).toBe('')
    expect(idString(a.conversation)).toBe('U1 I1 A1 U2')
    expect(a.turns).toBe(2)
    expect(a.tokens).toBe(viewTokens(view))
  })

  it('picks the latest system message by seq, not by view position', () => {
    // After a pass S* is pinned first while older system messages are gone; by seq it is newest.
    const view = [
      { ...system('S9'), seq: 9 },
      { ...user('U1'), seq: 3 },
      { ...system('S2'), seq: 2 },
    ]
    expect(analyzeView(view).latestSystem?.id).toBe('S9')
  })

  it('counts the latest system message and every non-system event, not superseded ones', () => {
    const view = sequenced([system('S1', 100), user('U1', 3), system('S2', 7), assistant('A1', 5), summary('Σ')])
    const sigma = view[4]!.tokens
    expect(analyzeView(view).tokens).toBe(7 + 3 + 5 + sigma)
    expect(viewTokens(view)).toBe(7 + 3 + 5 + sigma)
  })

  it('has no conversation and no turns without a user message', () => {
    const a = analyzeView(sequenced(events('S1 A0 A1')))
    expect(a.turns).toBe(0)
    expect(idString(a.preamble)).toBe('A0 A1')
    expect(a.conversation).toEqual([])
  })
})
