import { describe, expect, it } from 'vitest'
import { newPinsEvent } from '../events/new-event'
import { project } from '../projection'
import { compactListed, depsFor, events, idString, recordingSummarizer, storeOf } from '../testing'
import type { Window } from '../windows'
import { applyPins } from '.'

type Store = ReturnType<typeof storeOf>
let pinsWritten = 0
const pin = (store: Store, pin: string[], unpin: string[] = []) =>
  store.appendNow([newPinsEvent({ id: `P${++pinsWritten}`, timestamp: 't' }, { pin, unpin })])
const pass = (store: Store, window: Window, summarize = false) =>
  compactListed(
    { session: { id: 's', metadata: {} }, strategy: { window, summarizer: summarize ? recordingSummarizer() : null } },
    depsFor(store),
  )
const view = (store: Store) => idString(project(store.log))

describe('applyPins', () => {
  it('adds the pins and takes the unpins away; a pin wins over an unpin of the same id', () => {
    expect([...applyPins(new Set(['a', 'b']), { pin: ['c'], unpin: ['a'] })].sort()).toEqual(['b', 'c'])
    expect([...applyPins(new Set(), { pin: ['x'], unpin: ['x'] })]).toEqual(['x'])
  })
})

describe('a pass with pinned events', () => {
  it('never covers a pinned event: it moves to the pinned part, after the system message and the preamble, and the boundary holds it', async () => {
    const store = storeOf(events('S1 A0 U1 A1 U2 A2 U3 A3'))
    pin(store, ['A1'])
    const result = await pass(store, { lastTurns: 1 })
    expect(idString(result.covered)).toBe('U1 U2 A2')
    expect(idString(result.pinned)).toBe('S1 A0 A1')
    expect(result.boundary!.boundary).toMatchObject({ pinned: ['S1', 'A0', 'A1'], held: ['A1'] })
    expect(view(store)).toBe('S1 A0 A1 U3 A3')
  })

  it('puts the summary after what it holds, in log order', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    pin(store, ['A2', 'U1'])
    const result = await pass(store, { lastTurns: 1 }, true)
    const summary = idString(result.summary)
    expect(view(store)).toBe(`U1 A2 ${summary} U3 A3`)
  })

  it('gives a pinned event no slot of a window and takes its tokens off a budget first', async () => {
    // A pinned question is no turn start: lastTurns(1) keeps only U3's turn, and its reply A1 is covered.
    const turns = storeOf(events('U1 A1 U2 A2 U3 A3'))
    pin(turns, ['U1'])
    expect(idString((await pass(turns, { lastTurns: 1 })).covered)).toBe('A1 U2 A2')
    expect(view(turns)).toBe('U1 U3 A3')
    // Each event 10 tokens: a budget of 45 keeps two turns, less the pinned event's 10: one.
    const budget = storeOf(['U1', 'A1', 'U2', 'A2', 'U3', 'A3'].map((id) => ({ ...events(id)[0]!, tokens: 10 })))
    pin(budget, ['A1'])
    expect(idString((await pass(budget, { tokenBudget: 45 })).preserved)).toBe('U3 A3')
  })

  it('keeps a pinned event after the cut where it is; it is held only when the cut would cover it', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    pin(store, ['A3'])
    const result = await pass(store, { lastTurns: 1 })
    expect(idString(result.preserved)).toBe('U3 A3')
    expect(result.boundary!.boundary.held).toBeUndefined()
  })

  it('an unpinned event is ordinary again: one the boundary held is covered by the next pass that covers anything', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    pin(store, ['U1'])
    await pass(store, { lastTurns: 1 })
    expect(view(store)).toBe('U1 U3 A3')
    // Still pinned: a later pass keeps it where it is.
    store.appendNow(events('U4 A4'))
    await pass(store, { lastTurns: 1 })
    expect(view(store)).toBe('U1 U4 A4')
    pin(store, [], ['U1'])
    store.appendNow(events('U5 A5'))
    const result = await pass(store, { lastTurns: 1 })
    expect(idString(result.covered)).toBe('U1 U4 A4')
    expect(view(store)).toBe('U5 A5')
  })

  it('pinning an event already covered does not bring it back', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    await pass(store, { lastTurns: 1 })
    pin(store, ['U1'])
    expect(view(store)).toBe('U2 A2')
  })

  it('a PINS event written while the pass waits for its summary makes it unchanged: what it may cover changed', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    const summarizer = recordingSummarizer(async () => {
      pin(store, ['U1'])
      return { kind: 'summary', messages: [{ role: 'assistant', content: 'so far' }] }
    })
    const result = await compactListed(
      { session: { id: 's', metadata: {} }, strategy: { window: { lastTurns: 1 }, summarizer } },
      depsFor(store),
    )
    expect(result).toMatchObject({ unchanged: true, reason: 'conflict' })
    expect(view(store)).toBe('U1 A1 U2 A2 U3 A3')
  })
})
