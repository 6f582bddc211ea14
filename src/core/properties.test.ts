/**
 * Property-based tests: random logs built by random appends and passes (windows, summarizers,
 * appends racing a summarizer), checked against the invariants of the spec after every step.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isCompaction, isTurnStart, type MessageEvent, type NewMessageEvent, type Role, type SessionEvent } from './events'
import { extendView, project, viewMembership } from './projection'
import type { SummaryOutcome } from './summarizer'
import { compactListed, depsFor, ids, type ListedResult, msg, storeOf } from './testing'
import type { ModelFit } from './triggers'
import { analyzeView } from './view'
import type { Window } from './windows'

type Draft = { role: Role; tokens: number; synthetic?: false }
type Op =
  | { kind: 'append'; messages: Draft[] }
  | {
      kind: 'pass'
      window: Window
      model: ModelFit
      summarizer: 'none' | 'summary' | 'declined' | 'failed'
      racing: Draft[]
    }

const draft: fc.Arbitrary<Draft> = fc.record({
  role: fc.constantFrom<Role>('user', 'user', 'assistant', 'assistant', 'tool', 'system'),
  tokens: fc.integer({ min: 0, max: 40 }),
})
const window: fc.Arbitrary<Window> = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map((n) => ({ lastEvents: n })),
  fc.integer({ min: 1, max: 5 }).map((n) => ({ lastTurns: n })),
  fc.integer({ min: 1, max: 300 }).map((t) => ({ tokenBudget: t })),
  fc.double({ min: 0.001, max: 1, noNaN: true }).map((f) => ({ contextFraction: f })),
)
/** The model a pass fits for: what a contextFraction window is a fraction of. */
const model: fc.Arbitrary<ModelFit> = fc.record({
  promptBudget: fc.integer({ min: 1, max: 400 }),
  ratio: fc.double({ min: 0.5, max: 3, noNaN: true }),
})
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('append' as const), messages: fc.array(draft, { minLength: 1, maxLength: 10 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pass' as const),
      window,
      model,
      summarizer: fc.constantFrom('none' as const, 'summary' as const, 'declined' as const, 'failed' as const),
      racing: fc.array(draft, { maxLength: 3 }),
    }),
  },
)

let counter = 0
const materialize = (d: Draft): NewMessageEvent => {
  const id = `m${++counter}`
  return msg(id, { role: d.role, content: id }, { tokens: d.tokens })
}

interface Step {
  before: MessageEvent[]
  after: MessageEvent[]
  logBefore: number
  logAfter: number
  result?: ListedResult
  /** Messages appended while the pass awaited its summarizer. */
  raced: MessageEvent[]
}

/** Runs the operations, recording the view and log length around each. */
async function run(ops: Op[]) {
  const store = storeOf([])
  const deps = depsFor(store)
  const steps: Step[] = []
  for (const o of ops) {
    const before = project(store.log)
    const logBefore = store.log.length
    if (o.kind === 'append') {
      store.appendNow(o.messages.map(materialize))
      steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, raced: [] })
      continue
    }
    let raced: MessageEvent[] = []
    const summarizer =
      o.summarizer === 'none'
        ? null
        : {
            async summarize(): Promise<SummaryOutcome> {
              if (o.racing.length > 0) raced = store.appendNow(o.racing.map(materialize)) as MessageEvent[]
              if (o.summarizer === 'declined') return { kind: 'declined' }
              if (o.summarizer === 'failed') return { kind: 'failed' }
              return {
                kind: 'summary',
                messages: [
                  { role: 'user', content: 'so far?' },
                  { role: 'assistant', content: `summary ${counter}` },
                ],
              }
            },
          }
    const result = await compactListed(
      { session: { id: 's', metadata: {} }, strategy: { window: o.window, summarizer }, model: o.model },
      deps,
    )
    steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, result, raced })
  }
  return { store, steps }
}

/** Checks every invariant of the spec on the steps of one random run. */
function expectInvariants(log: readonly SessionEvent[], steps: Step[], cutSeed: number) {
  for (const step of steps) {
    const r = step.result
    const after = new Set(ids(step.after))
    const left = [...step.before, ...step.raced].filter((event) => !after.has(event.id))
    if (!r || r.unchanged) {
      // Appends and unchanged passes drop nothing, and an unchanged pass writes nothing.
      expect(left).toEqual([])
      if (r) expect(step.logAfter).toBe(step.logBefore + step.raced.length)
      continue
    }
    // The view after a pass is pinned + summary + preserved; the version is the log's length.
    expect(ids(step.after)).toEqual(ids([...r.pinned, ...r.summary, ...r.preserved]))
    expect(r.version).toBe(step.logAfter)
    // The kept conversation starts at a turn start, and the newest turn is always kept.
    expect(isTurnStart(r.preserved[0]!)).toBe(true)
    const conversation = analyzeView(step.before).conversation
    const kept = new Set(ids(r.preserved))
    for (const event of conversation.slice(conversation.findLastIndex(isTurnStart))) expect(kept.has(event.id)).toBe(true)
    // Nothing leaves the view except through a boundary that does not name it.
    expect(ids(left).sort()).toEqual(ids(r.covered).sort())
    const named = new Set([...r.boundary!.boundary.pinned, ...r.boundary!.boundary.preserved])
    for (const event of left) expect(named.has(event.id)).toBe(false)
  }
  // Every message of the log is in the view or was covered by some pass; the view holds no boundary.
  const view = project(log)
  expect(view.every((event) => event.type === 'MESSAGE')).toBe(true)
  const covered = new Set(steps.flatMap((step) => ids(step.result?.covered ?? [])))
  const inView = new Set(ids(view))
  for (const event of log) if (event.type === 'MESSAGE') expect(inView.has(event.id) || covered.has(event.id)).toBe(true)
  // A cached view, advanced by the events after it, agrees with the projection. A cache is always
  // at a whole append: never between a boundary and its summary.
  const cuts = [...log.keys(), log.length].filter((at) => !log[at]?.synthetic)
  const cut = cuts[cutSeed % cuts.length]!
  expect(extendView(project(log.slice(0, cut)), log.slice(cut))).toEqual(view)
  // Membership from the newest boundary alone agrees with the projection, event by event.
  const isInView = viewMembership(log.findLast(isCompaction) ?? null)
  for (const event of log) expect(isInView(event)).toBe(inView.has(event.id))
}

describe('compaction invariants over random logs', () => {
  it('hold after every append and pass (fraction windows of any model included): the view, turn safety, nothing lost, nothing written when unchanged, cached views', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.nat(), async (ops, cutSeed) => {
        const { store, steps } = await run(ops)
        expectInvariants(store.log, steps, cutSeed)
      }),
      { numRuns: 300 },
    )
  })
})
