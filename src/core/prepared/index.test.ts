import { describe, expect, it } from 'vitest'
import { compact, prepareSummaries } from '../compact'
import type { NewEvent } from '../events'
import { newCompactionEvent, newPinsEvent, newRewindEvent } from '../events/new-event'
import type { Summarizer } from '../summarizer'
import { depsFor, events, idString, recordingSummarizer, storeOf } from '../testing'
import { bestPrepared, type PreparedSummary, pastMark, preparedPrefix, triggerTokens } from '.'

const session = { id: 's1', metadata: {} }
const window = { lastTurns: 2 }
const T = { id: 'x', timestamp: 't' }

/**
 * A log of four turns, the summaries prepared for a `lastTurns: 2` pass (of what it covers now,
 * and once the next message comes), and the summarizer that wrote them (its calls recorded).
 */
async function preparedLog(log: NewEvent[] = events('U1 A1 U2 A2 U3 A3 U4 A4')) {
  const store = storeOf(log)
  const deps = depsFor(store)
  const summarizer = recordingSummarizer()
  const prepared = await prepareSummaries({ strategy: { window, summarizer }, session, previous: [] }, deps)
  return { store, deps, summarizer, prepared: prepared! }
}

const pass = (summarizer: Summarizer, prepared: readonly PreparedSummary[], deps: ReturnType<typeof depsFor>) =>
  compact({ session, strategy: { window, summarizer, prepared } }, deps)
const contents = (messages: readonly { message?: { content: unknown }; content?: unknown }[]) =>
  messages.map((m) => m.message?.content ?? m.content)

describe('prepareSummaries', () => {
  it('summarize what the pass would cover now and once the next message comes, the second on from the first; nothing written to the log', async () => {
    const { store, summarizer, prepared } = await preparedLog()
    expect(summarizer.requests.map((request) => idString(request.covered))).toEqual(['U1 A1 U2 A2', 'U3 A3'])
    expect(contents(summarizer.requests[1]!.priorSummary)).toEqual(contents(prepared[0]!.messages))
    expect(prepared.map((summary) => Array.from(summary.covered))).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5, 6],
    ])
    expect(prepared[0]!.messages.at(-1)!.content).toBe('summary of [] U1 A1 U2 A2')
    expect(store.log).toHaveLength(8)
  })

  it('top up from those prepared before and the events since, never from the start: one call a turn', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    await store.append(events('U5 A5'), store.version)
    const topped = await prepareSummaries({ strategy: { window, summarizer }, session, previous: prepared }, deps)
    // What a pass covers now is what the next message's would have covered: prepared already.
    expect(topped![0]).toBe(prepared[1])
    expect(summarizer.requests).toHaveLength(3)
    expect(idString(summarizer.requests[2]!.covered)).toBe('U4 A4')
    expect(contents(summarizer.requests[2]!.priorSummary)).toEqual(contents(prepared[1]!.messages))
    expect(Array.from(topped![1]!.covered)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })

  it('while the newest turn waits for its tool results, prepare only what a pass covers now: no call for each step of a loop', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    const loop = { strategy: { window, summarizer }, session, previous: prepared, nextMessage: false }
    await store.append(events('U5 C1'), store.version)
    // Now a pass keeps U4's and U5's turns: it covers what the next message's was prepared for.
    expect(await prepareSummaries(loop, deps)).toBeNull()
    await store.append(events('T1 C2'), store.version)
    expect(await prepareSummaries(loop, deps)).toBeNull()
    expect(summarizer.requests).toHaveLength(2)
    // The turn ended: the next message's range is prepared, topped up with U4's turn.
    await store.append(events('T2 A5'), store.version)
    const ended = await prepareSummaries({ ...loop, nextMessage: true }, deps)
    expect(summarizer.requests).toHaveLength(3)
    expect(idString(summarizer.requests[2]!.covered)).toBe('U4 A4')
    expect(Array.from(ended![1]!.covered)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
  })

  it('in a loop under a window that counts tokens, ask for a summary only when the range of now moves, not at each step', async () => {
    const store = storeOf(events('U1 A1 U2 C1'))
    const deps = depsFor(store)
    const summarizer = recordingSummarizer()
    let previous: PreparedSummary[] = []
    for (let step = 1; step <= 5; step++) {
      const loop = { strategy: { window: { tokenBudget: 1 }, summarizer }, session, previous, nextMessage: false }
      previous = (await prepareSummaries(loop, deps)) ?? previous
      await store.append(events(`T${step} C${step + 1}`), store.version)
    }
    // The newest turn is never covered: what a pass covers now is U1's turn, prepared once.
    expect(summarizer.requests.map((request) => idString(request.covered))).toEqual(['U1 A1'])
  })

  it('prepare nothing when those before cover both ranges already', async () => {
    const { deps, summarizer, prepared } = await preparedLog()
    expect(await prepareSummaries({ strategy: { window, summarizer }, session, previous: prepared }, deps)).toBeNull()
    expect(summarizer.requests).toHaveLength(2)
  })
})

describe('a pass with a prepared summary', () => {
  it('covering exactly its range: no model call, the prepared summary written, the boundary says prepared', async () => {
    const { deps, summarizer, prepared } = await preparedLog()
    const result = await pass(summarizer, prepared, deps)
    expect(summarizer.requests).toHaveLength(2)
    expect(result.boundary!.boundary.prepared).toBe(true)
    expect(contents(result.summary)).toEqual(contents(prepared[0]!.messages))
    expect(idString(deps.store.eventsAt(result.covered))).toBe('U1 A1 U2 A2')
  })

  it('the next message’s: a pass that comes with it (pending) takes it', async () => {
    const { deps, summarizer, prepared } = await preparedLog()
    const pending = events('U5')
    const result = await compact({ session, strategy: { window, summarizer, prepared }, pending }, deps)
    expect(summarizer.requests).toHaveLength(2)
    expect(contents(result.summary)).toEqual(contents(prepared[1]!.messages))
    expect(idString(deps.store.eventsAt(result.covered))).toBe('U1 A1 U2 A2 U3 A3')
  })

  it('covering the first part: only the rest is summarized, on from the one that covers the most', async () => {
    const { store, deps, summarizer, prepared } = await preparedLog()
    await store.append(events('U5 A5 U6 A6'), store.version)
    const result = await pass(summarizer, prepared, deps)
    expect(summarizer.requests).toHaveLength(3)
    expect(idString(summarizer.requests[2]!.covered)).toBe('U4 A4')
    expect(contents(summarizer.requests[2]!.priorSummary)).toEqual(contents(prepared[1]!.messages))
    expect(result.boundary!.boundary.prepared).toBe(true)
  })

  it('without one: the boundary does not say prepared', async () => {
    const { deps, summarizer } = await preparedLog()
    const result = await pass(summarizer, [], deps)
    expect(result.boundary!.boundary.prepared).toBeUndefined()
  })
})

/** The hard cases: whatever changed the range in between, the prepared summary is not used, so it never covers an event the pass does not. */
describe('a prepared summary that no longer matches is not used', () => {
  const expectNotUsed = async (
    summarizer: ReturnType<typeof recordingSummarizer>,
    prepared: readonly PreparedSummary[],
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

describe('preparedPrefix and bestPrepared', () => {
  const prepared = { prior: Int32Array.of(5), covered: Int32Array.of(6, 7), messages: [] }
  it('take the one that covers the most of the first part', () => {
    const longer = { ...prepared, covered: Int32Array.of(6, 7, 8) }
    const other = { ...prepared, covered: Int32Array.of(6, 9, 10, 11) }
    expect(bestPrepared([prepared, longer, other], Int32Array.of(5), Int32Array.of(6, 7, 8, 9))).toEqual({
      prepared: longer,
      from: 3,
    })
    expect(bestPrepared([other], Int32Array.of(5), Int32Array.of(6, 7, 8, 9))).toBeNull()
  })

  it('count the covered events it holds, or null', () => {
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
    // A trigger that counts no tokens leaves the mark to those that do; alone, the mark is the budget's.
    expect(triggerTokens({ allOf: [{ tokenCount: 2000 }, { turnCount: 9 }] }, model)).toBe(2000)
    expect(triggerTokens({ anyOf: [{ turnCount: 9 }, { tokenCount: 4000 }, { tokenCount: 2500 }] }, model)).toBe(2500)
    expect(triggerTokens({ turnCount: 9 }, model)).toBe(5000)
    expect(pastMark(2400, { tokenCount: 3000 }, model, 0.8)).toBe(true)
    expect(pastMark(2399, { tokenCount: 3000 }, model, 0.8)).toBe(false)
  })
})
