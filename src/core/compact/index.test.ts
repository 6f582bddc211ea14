import { describe, expect, it } from 'vitest'
import type { NewEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import { project } from '../projection'
import { VersionConflictError } from '../session-store'
import {
  assistant,
  compactListed,
  depsFor,
  events,
  idString,
  recordingSummarizer,
  sequenced,
  storeOf,
  system,
  user,
} from '../testing'
import { TRICKY_CASES } from '../testing/tricky-cases'
import { columnsOf } from '../view/columns'
import { newestThatFit } from '.'

const session = { id: 's1', metadata: {} }

/** The log of the spec's worked example: U1 A1 U2 A2 ⊥1 Σold U3 A3. */
function workedExampleLog(): NewEvent[] {
  const boundary = newCompactionEvent(
    { id: '⊥1', timestamp: 't' },
    { pinned: [], summary: ['Σold'], preserved: ['U2', 'A2'], coveredEventCount: 2, tokensEstimatedSaved: 0 },
  )
  return [...events('U1 A1 U2 A2'), boundary, ...events('Σold U3 A3')]
}

describe('the tricky cases of the spec', () => {
  it.each(TRICKY_CASES)('$name', async ({ before, window, after, covered }) => {
    const store = storeOf(events(before))
    const result = await compactListed({ session, strategy: { window } }, depsFor(store))
    const view = project(store.log)
    if (after === null) {
      expect(result).toMatchObject({ unchanged: true, reason: 'nothing_to_cover', covered: [] })
      expect(store.log.length).toBe(events(before).length)
      expect(idString(view)).toBe(before)
    } else {
      expect(result.unchanged).toBe(false)
      expect(idString(view)).toBe(after)
      expect(idString(result.covered)).toBe(covered)
    }
  })

  it('token budget with a system prompt (S = 11 tokens, each turn 21)', async () => {
    const log = [system('S', 11), user('U1', 10), assistant('A1', 11), user('U2', 10), assistant('A2', 11)]
    const store = storeOf(log)
    const result = await compactListed({ session, strategy: { window: { tokenBudget: 45 } } }, depsFor(store))
    expect(idString(project(store.log))).toBe('S U2 A2')
    expect(idString(result.covered)).toBe('U1 A1')
    expect(result.tokensEstimatedSaved).toBe(21)

    // Without S both turns (42) fit and nothing is covered.
    const noSystem = storeOf(log.slice(1))
    const same = await compactListed({ session, strategy: { window: { tokenBudget: 45 } } }, depsFor(noSystem))
    expect(same).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
  })

  it('a summarizer with a prior summary — the worked example', async () => {
    const store = storeOf(workedExampleLog())
    expect(idString(project(store.log))).toBe('Σold U2 A2 U3 A3')
    const summarizer = recordingSummarizer()
    const deps = depsFor(store)
    const result = await compactListed({ session, strategy: { window: { lastEvents: 2 }, summarizer } }, deps)

    expect(idString(result.covered)).toBe('Σold U2 A2')
    expect(idString(result.pinned)).toBe('')
    expect(idString(result.preserved)).toBe('U3 A3')
    expect(result.summary.map((e) => e.synthetic)).toEqual([true, true])
    expect(result.summary.map((e) => e.message.role)).toEqual(['user', 'assistant'])
    // The summarizer saw the prior summary separately and the covered conversation without it.
    expect(idString(summarizer.requests[0]!.priorSummary)).toBe('Σold')
    expect(idString(summarizer.requests[0]!.covered)).toBe('U2 A2')
    expect(idString(summarizer.requests[0]!.preserved)).toBe('U3 A3')

    // Appended: ⊥2 {summary: [Σnew], preserved: [U3, A3]} Σnew — a plain append.
    const appended = store.log.slice(8)
    expect(appended.map((e) => e.type)).toEqual(['COMPACTION', 'MESSAGE', 'MESSAGE'])
    const boundary = appended[0]!
    if (boundary.type !== 'COMPACTION') throw new Error('expected a boundary')
    expect(boundary.boundary).toMatchObject({
      pinned: [],
      summary: result.summary.map((e) => e.id),
      preserved: ['U3', 'A3'],
      coveredEventCount: 3,
    })
    expect(result.boundary).toEqual(boundary)
    expect(result.version).toBe(11)
    const view = project(store.log)
    expect(view.map((e) => e.id)).toEqual([...result.summary.map((e) => e.id), 'U3', 'A3'])
  })
})

describe('compact', () => {
  it('does nothing when the trigger does not fire', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const result = await compactListed(
      { session, trigger: { turnCount: 2 }, strategy: { window: { lastTurns: 1 } } },
      depsFor(store),
    )
    expect(result).toEqual({
      unchanged: true,
      reason: 'trigger_not_fired',
      covered: [],
      pinned: [],
      summary: [],
      preserved: [],
      tokensEstimatedSaved: 0,
      boundary: null,
      version: 4,
    })
    expect(store.log.length).toBe(4)
  })

  it('answers a dry run as one whatever it finds: trigger not fired, nothing to cover, or a plan; writes nothing', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const dry = (trigger: { turnCount: number } | undefined, window: { lastTurns: number }) =>
      compactListed({ session, trigger, strategy: { window }, dryRun: true }, depsFor(store))
    expect(await dry({ turnCount: 5 }, { lastTurns: 1 })).toMatchObject({ reason: 'trigger_not_fired', dryRun: true })
    expect(await dry(undefined, { lastTurns: 5 })).toMatchObject({ reason: 'nothing_to_cover', dryRun: true })
    const planned = await dry(undefined, { lastTurns: 1 })
    expect(planned).toMatchObject({ unchanged: false, boundary: null, dryRun: true })
    expect(idString(planned.covered)).toBe('U1 A1')
    expect(store.log.length).toBe(4)
  })

  it('plans and writes only at the expected version, and does not move a pass held to it onto newer events', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const held = (expectedVersion: number) =>
      compactListed({ session, strategy: { window: { lastTurns: 1 } }, expectedVersion }, depsFor(store))
    await expect(held(3)).rejects.toThrow(new VersionConflictError(3, 4))
    expect(store.log.length).toBe(4)
    const written = await held(4)
    expect(idString(written.covered)).toBe('U1 A1')
    expect(written.version).toBe(5)
  })

  it('throws the conflict, writing nothing, when a turn lands while the summary of a held pass is written', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const summarizer = recordingSummarizer(async () => {
      store.appendNow(events('U3 A3'))
      return { kind: 'summary', messages: [{ role: 'assistant', content: 'so far' }] }
    })
    const pass = compactListed(
      { session, strategy: { window: { lastTurns: 1 }, summarizer }, expectedVersion: 4 },
      depsFor(store),
    )
    await expect(pass).rejects.toThrow(new VersionConflictError(4, 6))
    expect(idString(store.log)).toBe('U1 A1 U2 A2 U3 A3')
  })

  it('defaults to the always trigger and a lastEvents(20) window', async () => {
    const store = storeOf(events(Array.from({ length: 15 }, (_, i) => `U${i} A${i}`).join(' ')))
    const result = await compactListed({ session }, depsFor(store))
    expect(result.preserved.length).toBe(20)
    expect(idString(result.preserved.slice(0, 1))).toBe('U5')
  })

  it('computes tokensEstimatedSaved as view tokens before minus after', async () => {
    const store = storeOf([system('S', 5), user('U1', 10), assistant('A1', 20), user('U2', 1), assistant('A2', 2)])
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, depsFor(store))
    expect(result.tokensEstimatedSaved).toBe(30)
    expect(result.boundary?.boundary.tokensEstimatedSaved).toBe(30)
  })

  it('reports a negative saving when the summary is longer than what it covers', async () => {
    const store = storeOf([user('U1', 1), assistant('A1', 1), user('U2', 1), assistant('A2', 1)])
    const long = 'word '.repeat(200)
    const summarizer = recordingSummarizer(() => ({
      kind: 'summary',
      messages: [
        { role: 'user', content: 'so far?' },
        { role: 'assistant', content: long },
      ],
    }))
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store))
    // Before: 4 tokens. After: the summary turn ('User: so far?' is 5 tokens, the long answer 203)
    // and the preserved U2 A2 (2).
    expect(result.tokensEstimatedSaved).toBe(4 - (5 + 203 + 2))
  })

  it('estimates only the summary events it creates, once each', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    const deps = depsFor(store)
    await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer: recordingSummarizer() } }, deps)
    expect(deps.estimator.calls).toBe(2)
  })

  it('sends a summarizer the newest covered events that fit its input, passing over one too big, all of them covered', async () => {
    const store = storeOf([
      user('U1', 10),
      assistant('A1', 10),
      user('U2', 10),
      assistant('A2', 500),
      user('U3', 1),
      assistant('A3', 1),
    ])
    const summarizer = Object.assign(recordingSummarizer(), { inputTokens: 25 })
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store))
    expect(idString(summarizer.requests[0]!.covered)).toBe('A1 U2')
    expect(idString(result.covered)).toBe('U1 A1 U2 A2')
  })

  it('newestThatFit takes every event that still fits, newest first, in view order', () => {
    const view = columnsOf(sequenced([user('a', 5), assistant('b', 50), user('c', 5), assistant('d', 5)]))
    const all = Int32Array.of(0, 1, 2, 3)
    expect([...newestThatFit(view, all, 100)]).toEqual([0, 1, 2, 3])
    expect([...newestThatFit(view, all, 12)]).toEqual([2, 3])
    expect([...newestThatFit(view, all, 15)]).toEqual([0, 2, 3])
    expect([...newestThatFit(view, all, 0)]).toEqual([])
  })

  describe('summarizer outcomes', () => {
    const run = async (answer: Parameters<typeof recordingSummarizer>[0]) => {
      const store = storeOf(events('U1 A1 U2 A2'))
      const deps = depsFor(store)
      const result = await compactListed(
        { session, strategy: { window: { lastTurns: 1 }, summarizer: recordingSummarizer(answer) } },
        deps,
      )
      return { store, deps, result }
    }

    it('declined: unchanged, nothing written', async () => {
      const { store, result, deps } = await run(() => ({ kind: 'declined' }))
      expect(result).toMatchObject({ unchanged: true, reason: 'summarizer_declined', boundary: null, version: 4 })
      expect(store.log.length).toBe(4)
      expect(deps.warnings).toEqual([])
    })

    it('no messages counts as declined', async () => {
      const { result } = await run(() => ({ kind: 'summary', messages: [] }))
      expect(result.reason).toBe('summarizer_declined')
    })

    it('failed: unchanged with a WARN, nothing written', async () => {
      const { store, result, deps } = await run(() => ({ kind: 'failed', detail: 'blank reply' }))
      expect(result).toMatchObject({ unchanged: true, reason: 'summarizer_failed' })
      expect(store.log.length).toBe(4)
      expect(deps.warnings).toHaveLength(1)
      expect(deps.warnings[0]!.data).toMatchObject({ session: 's1', detail: 'blank reply' })
    })

    it('a blank summary message counts as failed', async () => {
      const { store, result } = await run(() => ({ kind: 'summary', messages: [{ role: 'assistant', content: '  \n' }] }))
      expect(result.reason).toBe('summarizer_failed')
      expect(store.log.length).toBe(4)
    })

    it('a thrown error propagates and nothing is written', async () => {
      const store = storeOf(events('U1 A1 U2 A2'))
      const summarizer = recordingSummarizer(() => Promise.reject(new Error('upstream 500')))
      await expect(
        compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store)),
      ).rejects.toThrow('upstream 500')
      expect(store.log.length).toBe(4)
    })

    it('is not called when there is nothing to cover', async () => {
      const store = storeOf(events('U1 A1'))
      const summarizer = recordingSummarizer()
      const result = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store))
      expect(result.reason).toBe('nothing_to_cover')
      expect(summarizer.requests).toEqual([])
    })

    it('never receives system messages', async () => {
      const store = storeOf(events('S1 U1 A1 S2 U2 A2 U3 A3'))
      const summarizer = recordingSummarizer()
      const result = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, depsFor(store))
      expect(idString(result.covered)).toBe('S1 U1 A1 U2 A2')
      const request = summarizer.requests[0]!
      for (const list of [request.covered, request.preserved, request.priorSummary]) {
        expect(list.some((e) => e.message.role === 'system')).toBe(false)
      }
    })
  })
})

describe('compact with a pending user message', () => {
  it('may cover every stored turn; the boundary names stored events only; the pending message is not written', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2'))
    const result = await compactListed(
      { session, strategy: { window: { tokenBudget: 1 } }, pending: [user('Upending')] },
      depsFor(store),
    )
    expect(idString(result.covered)).toBe('U1 A1 U2 A2')
    expect(result.boundary?.boundary).toMatchObject({ pinned: ['S1'], summary: [], preserved: [] })
    expect(store.log.some((e) => e.id === 'Upending')).toBe(false)
    expect(idString(project(store.log))).toBe('S1')
  })
})

describe('multi-pass sequences', () => {
  it('window, then summary, then window', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2 U3 A3'))
    const deps = depsFor(store)
    await compactListed({ session, strategy: { window: { lastTurns: 2 } } }, deps)
    expect(idString(project(store.log))).toBe('S1 U2 A2 U3 A3')

    store.appendNow(events('U4 A4'))
    const second = await compactListed(
      { session, strategy: { window: { lastTurns: 1 }, summarizer: recordingSummarizer() } },
      deps,
    )
    expect(idString(second.covered)).toBe('U2 A2 U3 A3')
    const sigma = idString(second.summary)
    expect(idString(project(store.log))).toBe(`S1 ${sigma} U4 A4`)
    expect(second.summary[1]!.message.content).toBe('summary of [] U2 A2 U3 A3')

    store.appendNow(events('U5 A5'))
    const third = await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, deps)
    // Without a summarizer the prior summary is pinned, after the system message.
    expect(idString(third.pinned)).toBe(`S1 ${sigma}`)
    expect(idString(third.covered)).toBe('U4 A4')
    expect(idString(project(store.log))).toBe(`S1 ${sigma} U5 A5`)
  })

  it('summaries roll: the next summary is fed the previous one and covers it', async () => {
    const store = storeOf(events('U1 A1 U2 A2'))
    const deps = depsFor(store)
    const summarizer = recordingSummarizer()
    const first = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, deps)
    store.appendNow(events('U3 A3'))
    const second = await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer } }, deps)
    expect(second.covered.map((e) => e.id)).toEqual([...first.summary.map((e) => e.id), 'U2', 'A2'])
    expect(second.summary[1]!.message.content).toBe('summary of [Summarize the conversation so far. summary of [] U1 A1] U2 A2')
    expect(idString(project(store.log))).toBe(`${idString(second.summary)} U3 A3`)
  })

  it('system prompt changed between passes: the new one is pinned, the old one covered', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2'))
    const deps = depsFor(store)
    await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, deps)
    store.appendNow(events('S2 U3 A3'))
    expect(idString(project(store.log))).toBe('S1 U2 A2 S2 U3 A3')
    const result = await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, deps)
    expect(idString(result.pinned)).toBe('S2')
    expect(idString(result.covered)).toBe('S1 U2 A2')
    expect(idString(project(store.log))).toBe('S2 U3 A3')
  })

  it('preamble present: pinned through every pass', async () => {
    const store = storeOf(events('S1 A0 U1 A1 U2 A2'))
    const deps = depsFor(store)
    await compactListed({ session, strategy: { window: { lastTurns: 1 } } }, deps)
    expect(idString(project(store.log))).toBe('S1 A0 U2 A2')
    store.appendNow(events('U3 A3'))
    await compactListed({ session, strategy: { window: { lastTurns: 1 }, summarizer: recordingSummarizer() } }, deps)
    const view = project(store.log)
    expect(idString(view.slice(0, 2))).toBe('S1 A0')
    expect(idString(view.slice(-2))).toBe('U3 A3')
  })

  it('tool-calling turns stay whole', async () => {
    const store = storeOf(events('U1 C1 T1 A1 U2 C2 T2 C2b T2b A2'))
    const result = await compactListed({ session, strategy: { window: { lastEvents: 3 } } }, depsFor(store))
    // The raw cut lands inside turn 2 (at C2b): no later turn, so the newest turn is kept whole.
    expect(idString(result.preserved)).toBe('U2 C2 T2 C2b T2b A2')
    expect(idString(result.covered)).toBe('U1 C1 T1 A1')
  })
})
