import { describe, expect, it } from 'vitest'
import { MAX_REBASES } from '../compact'
import type { MessageEvent, NewEvent, SessionEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import { planPass } from '../pass'
import { project } from '../projection'
import { compactListed, depsFor, events, idString, listedCut, recordingSummarizer, sequenced, storeOf } from '../testing'
import { columnsOf } from '../view/columns'
import { rebase } from '.'

const session = { id: 's1', metadata: {} }
const at = (from: number, list: NewEvent[]) => list.map((event, i) => ({ ...event, seq: from + i }) as SessionEvent)

describe('rebase', () => {
  const view = sequenced(events('S1 U1 A1 U2 A2'))
  const plan = planPass(columnsOf(view), { window: { lastTurns: 1 }, summarizing: true })
  if (plan.kind !== 'cut') throw new Error('expected a cut')
  /** The rebased plan's lists as events: the new messages follow the planned view. */
  const listed = (outcome: ReturnType<typeof rebase>, since: SessionEvent[]) => {
    if (outcome.kind !== 'rebased') throw new Error('expected a rebase')
    return listedCut([...view, ...(since as MessageEvent[])], outcome.plan)
  }

  it('adds messages appended meanwhile to the end of the preserved list', () => {
    const since = at(6, events('U3 A3'))
    const rebased = listed(rebase(plan, since), since)
    expect(idString(rebased.preserved)).toBe('U2 A2 U3 A3')
    expect(idString(rebased.covered)).toBe('U1 A1')
    expect(idString(rebased.pinned)).toBe('S1')
  })

  it('makes a new system message the pinned one and covers the previous', () => {
    const since = at(6, events('S2 U3'))
    const rebased = listed(rebase(plan, since), since)
    expect(idString(rebased.pinned)).toBe('S2')
    expect(idString(rebased.covered)).toBe('S1 U1 A1')
    expect(idString(rebased.preserved)).toBe('U2 A2 U3')
  })

  it('is a conflict when another boundary was written', () => {
    const boundary = newCompactionEvent(
      { id: 'B', timestamp: 't' },
      { pinned: [], summary: [], preserved: ['U2', 'A2'], coveredEventCount: 3, tokensEstimatedSaved: 0 },
    )
    expect(rebase(plan, at(6, [boundary])).kind).toBe('conflict')
  })
})

describe('compact under concurrent appends', () => {
  it('rebases onto messages appended while the summarizer ran: none drops out of the view', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const summarizer = recordingSummarizer(async (request) => {
      store.appendNow(events('U3 A3')) // a turn lands while the summary is written
      return {
        kind: 'summary',
        messages: [
          { role: 'user', content: 'so far?' },
          { role: 'assistant', content: `sum ${idString(request.covered)}` },
        ],
      }
    })
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store))
    expect(result.unchanged).toBe(false)
    expect(idString(result.preserved)).toBe('U2 A2 U3 A3')
    expect(idString(project(store.log))).toBe(`${idString(result.summary)} U2 A2 U3 A3`)
    expect(result.version).toBe(store.version)
  })

  it('gives up with conflict when another pass wrote a boundary first, writing nothing', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    const deps = depsFor(store)
    const summarizer = recordingSummarizer(async () => {
      await compactListed({ session, strategy: { window: { lastTurns: 2 } } }, deps) // the other pass
      return { kind: 'summary', messages: [{ role: 'assistant', content: 'late' }] }
    })
    const before = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, deps)
    expect(before).toMatchObject({ unchanged: true, reason: 'conflict', boundary: null, version: 7 })
    expect(store.log.length).toBe(7)
    expect(idString(project(store.log))).toBe('U2 A2 U3 A3')
  })

  it('stops rebasing after a bounded number of attempts', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const deps = depsFor(store)
    const append = store.append.bind(store)
    let attempts = 0
    store.append = async (list, expected) => {
      attempts += 1
      store.appendNow(events(`U${100 + attempts}`)) // the log moves before every write
      return append(list, expected)
    }
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, deps)
    expect(result.reason).toBe('conflict')
    expect(attempts).toBe(MAX_REBASES + 1)
    expect(store.log.every((event) => event.type === 'MESSAGE')).toBe(true)
  })
})
