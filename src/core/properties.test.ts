/**
 * Property-based tests: random logs built by random appends and passes (windows, summarizers,
 * appends racing a summarizer), checked against the invariants of the spec after every step.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type CompactionResult, compact } from './compact'
import { isTurnStart, type MessageEvent, type NewMessageEvent, type Role } from './events'
import { extendView, project } from './projection'
import type { SummaryOutcome } from './summarizer'
import { depsFor, ids, msg, storeOf } from './testing'
import { analyzeView } from './view'
import type { Window } from './windows'

type Draft = { role: Role; tokens: number; synthetic?: false }
type Op =
  | { kind: 'append'; messages: Draft[] }
  | { kind: 'pass'; window: Window; summarizer: 'none' | 'summary' | 'declined' | 'failed'; racing: Draft[] }

const draft: fc.Arbitrary<Draft> = fc.record({
  role: fc.constantFrom<Role>('user', 'user', 'assistant', 'assistant', 'tool', 'system'),
  tokens: fc.integer({ min: 0, max: 40 }),
})
const window: fc.Arbitrary<Window> = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map((n) => ({ lastEvents: n })),
  fc.integer({ min: 1, max: 5 }).map((n) => ({ lastTurns: n })),
  fc.integer({ min: 1, max: 300 }).map((t) => ({ tokenBudget: t })),
)
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
  result?: CompactionResult
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
    const result = await compact({ session: { id: 's', metadata: {} }, strategy: { window: o.window, summarizer } }, deps)
    steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, result, raced })
  }
  return { store, steps }
}

const runs = { numRuns: 200 }

describe('compaction invariants over random logs', () => {
  it('the view after a pass is pinned + summary + preserved, and is the projection of the log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { steps } = await run(ops)
        for (const step of steps) {
          const r = step.result
          if (!r || r.unchanged) continue
          expect(ids(step.after)).toEqual(ids([...r.pinned, ...r.summary, ...r.preserved]))
        }
      }),
      runs,
    )
  })

  it('the kept conversation starts at a turn start and the newest turn is always kept', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { steps } = await run(ops)
        for (const step of steps) {
          const r = step.result
          if (!r || r.unchanged) continue
          expect(isTurnStart(r.preserved[0]!)).toBe(true)
          const conversation = analyzeView(step.before).conversation
          const newest = conversation.findLastIndex(isTurnStart)
          const kept = new Set(ids(r.preserved))
          for (const event of conversation.slice(newest)) expect(kept.has(event.id)).toBe(true)
        }
      }),
      runs,
    )
  })

  it('nothing leaves the view except through a boundary that does not name it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { store, steps } = await run(ops)
        for (const step of steps) {
          const after = new Set(ids(step.after))
          const left = [...step.before, ...step.raced].filter((event) => !after.has(event.id))
          if (!step.result || step.result.unchanged) {
            expect(left).toEqual([]) // appends and unchanged passes drop nothing
            continue
          }
          expect(ids(left).sort()).toEqual(ids(step.result.covered).sort())
          const named = new Set([...step.result.boundary!.boundary.pinned, ...step.result.boundary!.boundary.preserved])
          for (const event of left) expect(named.has(event.id)).toBe(false)
        }
        // Every message of the log is in the view or was covered by some pass.
        const covered = new Set(steps.flatMap((step) => ids(step.result?.covered ?? [])))
        const view = new Set(ids(project(store.log)))
        for (const event of store.log) {
          if (event.type === 'MESSAGE') expect(view.has(event.id) || covered.has(event.id)).toBe(true)
        }
      }),
      runs,
    )
  })

  it('an unchanged result writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const { steps } = await run(ops)
        for (const step of steps) {
          if (step.result?.unchanged) expect(step.logAfter).toBe(step.logBefore + step.raced.length)
          if (step.result && !step.result.unchanged) expect(step.result.version).toBe(step.logAfter)
        }
      }),
      runs,
    )
  })

  it('projection is deterministic, has no COMPACTION events, and agrees with a cached view advanced by the tail', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.nat(), async (ops, cutSeed) => {
        const { store } = await run(ops)
        const view = project(store.log)
        expect(project(store.log)).toEqual(view)
        expect(view.every((event) => event.type === 'MESSAGE')).toBe(true)
        // A cached view is always at a whole append: never between a boundary and its summary.
        const cuts = [...store.log.keys(), store.log.length].filter((at) => !store.log[at]?.synthetic)
        const cut = cuts[cutSeed % cuts.length]!
        expect(extendView(project(store.log.slice(0, cut)), store.log.slice(cut))).toEqual(view)
      }),
      runs,
    )
  })
})
