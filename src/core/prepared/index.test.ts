import { describe, expect, it } from 'vitest'
import { compact, prepareSummary } from '../compact'
import type { NewEvent } from '../events'
import { newCompactionEvent, newPinsEvent, newRewindEvent } from '../events/new-event'
import type { Summarizer } from '../summarizer'
import { depsFor, events, idString, recordingSummarizer, storeOf } from '../testing'
import { type PreparedSummary, pastMark, preparedPrefix, triggerTokens } from '.'

const session = { id: 's1', metadata: {} }
const window = { lastTurns: 2 }
const T = { id: 'x', timestamp: 't' }

/** A log of four turns, a summary prepared for a `lastTurns: 2` pass, and the summarizer that wrote it (its calls recorded). */
async function preparedLog(log: NewEvent[] = events('U1 A1 U2 A2 U3 A3 U4 A4')) {
  const store = storeOf(log)
  const deps = depsFor(store)
  const summarizer = recordingSummarizer()
  const prepared = await prepareSummary({ strategy: { window, summarizer }, session, previous: null }, deps)
  return { store, deps, summarizer, prepared: prepared! }
}

const pass = (summarizer: Summarizer, prepared: PreparedSummary | null, deps: ReturnType<typeof depsFor>) =>
  compact({ session, strategy: { window, summarizer, prepared } }, deps)

describe('prepareSummary', () => {
  it('summarizes what the pass would cover now, and writes nothing to the log', async () => {
    const { store, summarizer, prepared } = await preparedLog()
    expect(idString(summarizer.requests[0]!.covered)).toBe('U1 A1 U2 A2')
    expect(Array.from(prepared.covered)).toEqual([1, 2, 3, 4])
    expect(prepared.messages.at(-1)!.content).toBe('summary of [] U1 A1 U2 A2')
    expect(store.log).toHaveLength(8)
  })

  it('tops up from the previous prepared summary and the events since, never from the start', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    await store.append(events('U5 A5'), store.version)
    const topped = await prepareSummary({ strategy: { window, summarizer }, session, previous: prepared }, deps)
    const request = summarizer.requests[1]!
    expect(idString(request.covered)).toBe('U3 A3')
    expect(request.priorSummary.map((event) => event.message.content)).toEqual(prepared.messages.map((m) => m.content))
    expect(Array.from(topped!.covered)).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('prepares nothing when the previous one covers the range already', async () => {
    const { deps, summarizer, prepared } = await preparedLog()
    expect(await prepareSummary({ strategy: { window, summarizer }, session, previous: prepared }, deps)).toBeNull()
    expect(summarizer.requests).toHaveLength(1)
  })
})

describe('a pass with a prepared summary', () => {
  it('covering exactly its range: no model call, the prepared summary written, the boundary says prepared', async () => {
    const { deps, summarizer, prepared } = await preparedLog()
    const result = await pass(summarizer, prepared, deps)
    expect(summarizer.requests).toHaveLength(1)
    expect(result.boundary!.boundary.prepared).toBe(true)
    expect(result.summary.map((event) => event.message.content)).toEqual(prepared.messages.map((m) => m.content))
    expect(idString(deps.store.eventsAt(result.covered))).toBe('U1 A1 U2 A2')
  })

  it('covering the first part: only the rest is summarized, on from the prepared one', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    await store.append(events('U5 A5'), store.version)
    const result = await pass(summarizer, prepared, deps)
    expect(summarizer.requests).toHaveLength(2)
    expect(idString(summarizer.requests[1]!.covered)).toBe('U3 A3')
    expect(summarizer.requests[1]!.priorSummary.at(-1)!.message.content).toBe('summary of [] U1 A1 U2 A2')
    expect(result.boundary!.boundary.prepared).toBe(true)
  })

  it('without one: the boundary does not say prepared', async () => {
    const { deps, summarizer } = await preparedLog()
    const result = await pass(summarizer, null, deps)
    expect(result.boundary!.boundary.prepared).toBeUndefined()
  })
})

/** The hard cases: whatever changed the range in between, the prepared summary is not used, so it never covers an event the pass does not. */
describe('a prepared summary that no longer matches is not used', () => {
  const expectNotUsed = async (
    summarizer: ReturnType<typeof recordingSummarizer>,
    prepared: PreparedSummary,
    deps: ReturnType<typeof depsFor>,
    covered: string,
  ) => {
    const result = await pass(summarizer, prepared, deps)
    expect(idString(summarizer.requests.at(-1)!.covered)).toBe(covered)
    expect(summarizer.requests.at(-1)!.priorSummary).toEqual([])
    expect(result.boundary!.boundary.prepared).toBeUndefined()
  }

  it('an event of its range pinned since', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    await store.append([newPinsEvent(T, { pin: ['A1'], unpin: [] })], store.version)
    await expectNotUsed(summarizer, prepared, deps, 'U1 U2 A2')
  })

  it('a rewind into its range, and new turns after it', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    const rewind = newRewindEvent(
      T,
      { pinned: [], summary: [], preserved: ['U1', 'A1'], coveredEventCount: 6, tokensEstimatedSaved: 0 },
      { to: 'A1', position: 'at', reason: 'api' },
    )
    await store.append([rewind, ...events('U6 A6 U7 A7 U8 A8')], store.version)
    await expectNotUsed(summarizer, prepared, deps, 'U1 A1 U6 A6')
  })

  it('an edit of a message in its range (a rewind before it, then the new text)', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    const edit = newRewindEvent(
      T,
      { pinned: [], summary: [], preserved: ['U1', 'A1'], coveredEventCount: 6, tokensEstimatedSaved: 0 },
      { to: 'U2', position: 'before', reason: 'edit' },
    )
    await store.append([edit, ...events('U9 A9 U3 A3 U4 A4')], store.version)
    await expectNotUsed(summarizer, prepared, deps, 'U1 A1 U9 A9')
  })

  it('the pass it was prepared after undone (another prior summary)', async () => {
    const log = [
      ...events('U1 A1 U2 A2'),
      newCompactionEvent(T, {
        pinned: [],
        summary: ['Σ1'],
        preserved: ['U2', 'A2'],
        coveredEventCount: 2,
        tokensEstimatedSaved: 0,
      }),
      ...events('Σ1 U3 A3 U4 A4 U5 A5'),
    ]
    const { store, deps, summarizer, prepared } = await preparedLog(log)
    expect(idString(summarizer.requests[0]!.priorSummary)).toBe('Σ1')
    const undo = newCompactionEvent(
      { id: 'undo', timestamp: 't' },
      {
        pinned: [],
        summary: [],
        preserved: ['U1', 'A1', 'U2', 'A2', 'U3', 'A3', 'U4', 'A4', 'U5', 'A5'],
        coveredEventCount: 1,
        tokensEstimatedSaved: 0,
        undoes: 'x',
      },
    )
    await store.append([undo], store.version)
    await expectNotUsed(summarizer, prepared, deps, 'U1 A1 U2 A2 U3 A3')
  })
})

describe('preparedPrefix', () => {
  const prepared = { prior: Int32Array.of(5), covered: Int32Array.of(6, 7), messages: [] }
  it('counts the covered events it holds, or null', () => {
    expect(preparedPrefix(prepared, Int32Array.of(5), Int32Array.of(6, 7, 8))).toBe(2)
    expect(preparedPrefix(prepared, Int32Array.of(5), Int32Array.of(6, 7))).toBe(2)
    expect(preparedPrefix(prepared, Int32Array.of(5), Int32Array.of(6))).toBeNull()
    expect(preparedPrefix(prepared, Int32Array.of(), Int32Array.of(6, 7))).toBeNull()
    expect(preparedPrefix(prepared, Int32Array.of(5), Int32Array.of(6, 9, 7))).toBeNull()
  })
})

describe('the mark', () => {
  const model = { promptBudget: 10_000, ratio: 2 }
  it('is a share of the tokens the trigger fires at (estimated tokens)', () => {
    expect(triggerTokens({ tokenCount: 3000 }, model)).toBe(3000)
    expect(triggerTokens({ contextFraction: 0.6 }, model)).toBe(3000)
    expect(triggerTokens({ anyOf: [{ tokenCount: 2000 }, { contextFraction: 0.6 }] }, model)).toBe(2000)
    expect(triggerTokens({ allOf: [{ tokenCount: 2000 }, { turnCount: 9 }] }, model)).toBe(5000)
    expect(pastMark(2400, { tokenCount: 3000 }, model, 0.8)).toBe(true)
    expect(pastMark(2399, { tokenCount: 3000 }, model, 0.8)).toBe(false)
  })
})
