/**
 * Property-based tests: random logs built by random appends (tool loops among them), passes
 * (windows, summarizers, appends and rewinds racing a summarizer), rewinds (to any message, abandoned ones included) and
 * undos of the newest pass and pins of any message, checked
 * against the invariants of the spec after every step.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type CompactionEvent,
  isBoundary,
  isTurnStart,
  type MessageEvent,
  type NewMessageEvent,
  type RewindPosition,
  type Role,
  type SessionEvent,
} from './events'
import { newCompactionEvent, newPinsEvent, newRewindEvent } from './events/new-event'
import { leftBehind, lineage, lineageRuns, prefixEnd, rewindBoundary } from './lineage'
import type { ViewPins } from './pins'
import { extendView, project, viewMembership } from './projection'
import type { SummaryOutcome } from './summarizer'
import { compactListed, depsFor, ids, type ListedResult, msg, storeOf } from './testing'
import type { ModelFit } from './triggers'
import { undoablePass, undoBoundary } from './undo'
import { analyzeView } from './view'
import { columnsOf, viewEntryOf } from './view/columns'
import type { Window } from './windows'

type Draft = { role: Role; tokens: number; synthetic?: false }
type Op =
  | { kind: 'append'; messages: Draft[] }
  /** A turn with a tool loop: a question, `calls` rounds of an assistant calling a tool and its result, a reply. */
  | { kind: 'toolLoop'; calls: number; tokens: number }
  | {
      kind: 'pass'
      window: Window
      model: ModelFit
      summarizer: 'none' | 'summary' | 'declined' | 'failed'
      racing: Draft[]
      /** A rewind to the empty log written while the summarizer runs (a turn's edit racing a background pass). */
      racingRewind: boolean
    }
  | { kind: 'rewind'; pick: number; position: RewindPosition | 'empty' }
  /** An undo of the newest pass on the lineage not undone (nothing when there is none). */
  | { kind: 'undo' }
  /** A PINS event pinning or unpinning a message of the log (any: covered, abandoned, in view). */
  | { kind: 'pin'; pick: number; unpin: boolean }

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
      kind: fc.constant('toolLoop' as const),
      calls: fc.integer({ min: 1, max: 3 }),
      tokens: fc.integer({ min: 0, max: 40 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pass' as const),
      window,
      model,
      summarizer: fc.constantFrom('none' as const, 'summary' as const, 'declined' as const, 'failed' as const),
      racing: fc.array(draft, { maxLength: 3 }),
      racingRewind: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rewind' as const),
      pick: fc.nat(),
      position: fc.constantFrom<RewindPosition | 'empty'>('at', 'at', 'before', 'before', 'empty'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'undo' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pin' as const), pick: fc.nat(), unpin: fc.boolean() }) },
)

let counter = 0
const materialize = (d: Draft): NewMessageEvent => {
  const id = `m${++counter}`
  return msg(id, { role: d.role, content: id }, { tokens: d.tokens })
}

/** A tool loop's events, each call answered by the tool message after it. */
function toolLoop(calls: number, tokens: number): NewMessageEvent[] {
  const loop = [materialize({ role: 'user', tokens })]
  for (let i = 0; i < calls; i++) {
    const call = { id: `call_${++counter}`, name: 'lookup', arguments: '{}' }
    loop.push(msg(`m${++counter}`, { role: 'assistant', content: null, toolCalls: [call] }, { tokens }))
    loop.push(
      msg(
        `m${++counter}`,
        { role: 'tool', content: null, toolResponses: [{ id: call.id, name: 'lookup', data: 'r' }] },
        { tokens },
      ),
    )
  }
  loop.push(materialize({ role: 'assistant', tokens }))
  return loop
}

interface Step {
  before: MessageEvent[]
  after: MessageEvent[]
  logBefore: number
  logAfter: number
  result?: ListedResult
  /** Messages appended while the pass awaited its summarizer. */
  raced: MessageEvent[]
  /** A REWIND written while the pass awaited its summarizer. */
  racedRewind?: boolean
  /** A rewind's: the prefix it went back to, and whether it wrote a REWIND. */
  rewound?: { end: number; written: boolean }
  /** An undo's: the pass it took back (null: none could be). */
  undid?: { pass: CompactionEvent } | null
  /** A pass's: the pins of the view it was planned on. */
  pins?: ViewPins
}

const seqOf = (log: readonly SessionEvent[]) => {
  const seqs = new Map(log.map((event) => [event.id, event.seq]))
  return (id: string) => seqs.get(id)!
}

/** The message ids of a log's lineage, by the spec's recursive reading: the lineage of the newest REWIND's point, then the REWIND and what follows it. */
function lineageIds(log: readonly SessionEvent[]): Set<string> {
  const r = log.findLastIndex((event) => event.type === 'REWIND')
  if (r < 0) return new Set(log.filter((event) => event.type === 'MESSAGE').map((event) => event.id))
  const rewind = log[r]!
  const end = rewind.type === 'REWIND' ? prefixEnd(rewind.rewind, seqOf(log)) : 0
  const earlier = lineageIds(log.slice(0, end))
  for (const event of log.slice(r)) if (event.type === 'MESSAGE') earlier.add(event.id)
  return earlier
}

/** Runs the operations, recording the view and log length around each. */
async function run(ops: Op[]) {
  const store = storeOf([])
  const deps = depsFor(store)
  const steps: Step[] = []
  for (const o of ops) {
    const before = project(store.log)
    const logBefore = store.log.length
    if (o.kind === 'append' || o.kind === 'toolLoop') {
      store.appendNow(o.kind === 'append' ? o.messages.map(materialize) : toolLoop(o.calls, o.tokens))
      steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, raced: [] })
      continue
    }
    if (o.kind === 'rewind') {
      // Any message compaction did not write, on the lineage or abandoned.
      const targets = store.log.filter((event) => event.type === 'MESSAGE' && !event.synthetic)
      const target = o.position === 'empty' || targets.length === 0 ? null : targets[o.pick % targets.length]!
      const point = { to: target?.id ?? null, position: o.position === 'empty' ? 'at' : o.position }
      const end = prefixEnd(point, seqOf(store.log))
      const prefix = store.log.slice(0, end)
      const boundary = rewindBoundary(columnsOf(before), {
        named: prefix.findLast(isBoundary)?.boundary ?? null,
        view: project(prefix).map(viewEntryOf),
      })
      if (boundary)
        store.appendNow([newRewindEvent({ id: `r${++counter}`, timestamp: 't' }, boundary, { ...point, reason: 'api' })])
      const after = project(store.log)
      steps.push({
        before,
        after,
        logBefore,
        logAfter: store.log.length,
        raced: [],
        rewound: { end, written: boundary !== null },
      })
      continue
    }
    if (o.kind === 'pin') {
      // What the API lets a client pin: a message of the conversation, not a system message (the latest is always kept).
      const targets = store.log.filter((event) => event.type === 'MESSAGE' && !event.synthetic && event.message.role !== 'system')
      const id = targets.length > 0 ? targets[o.pick % targets.length]!.id : null
      if (id)
        store.appendNow([
          newPinsEvent({ id: `p${++counter}`, timestamp: 't' }, o.unpin ? { pin: [], unpin: [id] } : { pin: [id], unpin: [] }),
        ])
      steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, raced: [] })
      continue
    }
    if (o.kind === 'undo') {
      steps.push({ ...undoNewest(store, before), before, logBefore, raced: [] })
      continue
    }
    const pins = store.pins()
    let raced: MessageEvent[] = []
    let racedRewind = false
    const summarizer =
      o.summarizer === 'none'
        ? null
        : {
            async summarize(): Promise<SummaryOutcome> {
              if (o.racing.length > 0) raced = store.appendNow(o.racing.map(materialize)) as MessageEvent[]
              if (o.racingRewind) racedRewind = rewindToStart(store)
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
    steps.push({ before, after: project(store.log), logBefore, logAfter: store.log.length, result, raced, racedRewind, pins })
  }
  return { store, steps }
}

/** A rewind to the empty log, as the service writes it; whether it wrote one (not when the view is empty). */
function rewindToStart(store: ReturnType<typeof storeOf>): boolean {
  const boundary = rewindBoundary(columnsOf(project(store.log)), { named: null, view: [] })
  if (boundary)
    store.appendNow([
      newRewindEvent({ id: `r${++counter}`, timestamp: 't' }, boundary, { to: null, position: 'at', reason: 'api' }),
    ])
  return boundary !== null
}

/** Undoes the newest pass on the lineage not undone, as the service does; what the step records of it. */
function undoNewest(store: ReturnType<typeof storeOf>, before: MessageEvent[]) {
  const log = store.log
  const on = new Set(lineage(log, seqOf(log)))
  const passes = log.filter((event): event is CompactionEvent => event.type === 'COMPACTION' && on.has(event.seq)).reverse()
  const pass = undoablePass(passes)
  if (pass) {
    const prefix = log.slice(0, pass.seq - 1)
    const summary = new Set(pass.boundary.summary)
    const after = before.filter((event) => event.seq > pass.seq && !summary.has(event.id))
    const named = prefix.findLast(isBoundary)?.boundary ?? null
    const boundary = undoBoundary(
      columnsOf(before),
      { named, view: project(prefix).map(viewEntryOf) },
      after.map(viewEntryOf),
      pass.id,
    )
    store.appendNow([newCompactionEvent({ id: `u${++counter}`, timestamp: 't' }, boundary)])
  }
  return { after: project(store.log), logAfter: store.log.length, undid: pass ? { pass } : null }
}

/** The messages a rewind to the prefix `end` abandons, by lineage runs, as the store counts them. */
function abandonedByRuns(log: readonly SessionEvent[], version: number, end: number): number {
  const rewindAtOrBefore = (seq: number) => {
    const rewind = log.slice(0, seq).findLast((event) => event.type === 'REWIND')
    return rewind?.type === 'REWIND' ? { seq: rewind.seq, end: prefixEnd(rewind.rewind, seqOf(log)) } : null
  }
  const runs = leftBehind(lineageRuns(version, rewindAtOrBefore), lineageRuns(end, rewindAtOrBefore))
  return runs.reduce((n, run) => n + log.slice(run.from - 1, run.to).filter((event) => event.type === 'MESSAGE').length, 0)
}

/** Checks every invariant of the spec on the steps of one random run. */
function expectInvariants(log: readonly SessionEvent[], steps: Step[], cutSeed: number) {
  // The view after each whole step, by the log's length then.
  const viewAt = new Map<number, string[]>([[0, []]])
  const leftByRewinds = new Set<string>()
  // What each pass covered, by its boundary's id.
  const coveredBy = new Map(
    steps.flatMap((step) => (step.result?.boundary ? [[step.result.boundary.id, ids(step.result.covered)]] : [])),
  )
  for (const step of steps) {
    const r = step.result
    const after = new Set(ids(step.after))
    const left = [...step.before, ...step.raced].filter((event) => !after.has(event.id))
    // The view is always on the lineage: no abandoned event is in it.
    const onLineage = lineageIds(log.slice(0, step.logAfter))
    for (const event of step.after) expect(onLineage.has(event.id)).toBe(true)
    if (step.rewound) {
      const { end, written } = step.rewound
      // The view after a rewind is the view as of its point: the projection of that prefix, and
      // exactly the view the session had then, compactions and rewinds since undone.
      expect(ids(step.after)).toEqual(ids(project(log.slice(0, end))))
      if (viewAt.has(end)) expect(ids(step.after)).toEqual(viewAt.get(end))
      if (written) {
        const rewind = log[step.logAfter - 1]!
        if (rewind.type !== 'REWIND') throw new Error(`a rewind wrote a ${rewind.type}`)
        expect(rewind.boundary.coveredEventCount).toBe(left.length)
        // What it abandoned, walked by runs only as far as the two lineages differ, is what the
        // lineages differ by.
        const was = lineageIds(log.slice(0, step.logBefore))
        const is = lineageIds(log.slice(0, step.logAfter))
        expect(abandonedByRuns(log, step.logBefore, end)).toBe([...was].filter((id) => !is.has(id)).length)
        for (const event of left) leftByRewinds.add(event.id)
      } else {
        expect(step.logAfter).toBe(step.logBefore)
        expect(left).toEqual([])
      }
      viewAt.set(step.logAfter, ids(step.after))
      continue
    }
    if (step.undid !== undefined) {
      viewAt.set(step.logAfter, ids(step.after))
      if (step.undid === null) {
        expect(step.logAfter).toBe(step.logBefore)
        continue
      }
      // What the pass covered is back in the view; only its summary leaves; nothing else changes order.
      const { pass } = step.undid
      for (const id of coveredBy.get(pass.id) ?? []) expect(after.has(id)).toBe(true)
      const summary = new Set(pass.boundary.summary)
      for (const event of left) expect(summary.has(event.id)).toBe(true)
      for (const event of left) leftByRewinds.add(event.id)
      const undo = log[step.logAfter - 1]!
      expect(undo.type === 'COMPACTION' && undo.boundary.undoes).toBe(pass.id)
      continue
    }
    viewAt.set(step.logAfter, ids(step.after))
    if (step.racedRewind) {
      // A rewind written while the pass waited wins: the pass writes nothing, the view is the rewind's (empty).
      expect(r?.unchanged).toBe(true)
      if (r?.reason !== 'summarizer_failed' && r?.reason !== 'summarizer_declined') expect(r?.reason).toBe('conflict')
      expect(step.logAfter).toBe(step.logBefore + step.raced.length + 1)
      expect(step.after).toEqual([])
      for (const event of left) leftByRewinds.add(event.id)
      continue
    }
    if (!r || r.unchanged) {
      // Appends and unchanged passes drop nothing, and an unchanged pass writes nothing.
      expect(left).toEqual([])
      if (r) expect(step.logAfter).toBe(step.logBefore + step.raced.length)
      continue
    }
    // The view after a pass is pinned + summary + preserved; the version is the log's length.
    expect(ids(step.after)).toEqual(ids([...r.pinned, ...r.summary, ...r.preserved]))
    expect(r.version).toBe(step.logAfter)
    // A pinned event is never covered: it stays in the view.
    const pinnedBefore = step.before.filter((event) => step.pins!.pinned(event.seq))
    for (const event of pinnedBefore) expect(after.has(event.id)).toBe(true)
    // The kept conversation starts at a turn start, and the newest turn is always kept.
    expect(isTurnStart(r.preserved[0]!)).toBe(true)
    const conversation = analyzeView(step.before, step.pins).conversation
    const kept = new Set(ids(r.preserved))
    for (const event of conversation.slice(conversation.findLastIndex(isTurnStart))) expect(kept.has(event.id)).toBe(true)
    // Nothing leaves the view except through a boundary that does not name it; abandoned events
    // are never covered (never summarized).
    expect(ids(left).sort()).toEqual(ids(r.covered).sort())
    for (const event of r.covered) expect(onLineage.has(event.id)).toBe(true)
    const named = new Set([...r.boundary!.boundary.pinned, ...r.boundary!.boundary.preserved])
    for (const event of left) expect(named.has(event.id)).toBe(false)
  }
  // Every message of the log is in the view, or left it through a boundary: covered by a pass or
  // taken out by a rewind. The view holds no boundary.
  const view = project(log)
  expect(view.every((event) => event.type === 'MESSAGE')).toBe(true)
  const covered = new Set(steps.flatMap((step) => ids(step.result?.covered ?? [])))
  const inView = new Set(ids(view))
  for (const event of log)
    if (event.type === 'MESSAGE') expect(inView.has(event.id) || covered.has(event.id) || leftByRewinds.has(event.id)).toBe(true)
  // The lineage walk agrees with the recursive reading.
  const walked = lineage(log, seqOf(log)).map((seq) => log[seq - 1]!)
  expect(new Set(ids(walked.filter((event) => event.type === 'MESSAGE')))).toEqual(lineageIds(log))
  // A cached view, advanced by the events after it, agrees with the projection. A cache is always
  // at a whole append: never between a boundary and its summary.
  const cuts = [...log.keys(), log.length].filter((at) => !log[at]?.synthetic)
  const cut = cuts[cutSeed % cuts.length]!
  const byId = new Map(log.flatMap((event) => (event.type === 'MESSAGE' ? [[event.id, event]] : [])))
  expect(extendView(project(log.slice(0, cut)), log.slice(cut), (id) => byId.get(id))).toEqual(view)
  // Membership from the newest boundary alone agrees with the projection, event by event.
  const isInView = viewMembership(log.findLast(isBoundary) ?? null)
  for (const event of log) expect(isInView(event)).toBe(inView.has(event.id))
}

describe('compaction and rewind invariants over random logs', () => {
  it('hold after every append, pass, rewind, undo and pin (fraction windows of any model included): the view, the view as of a point, the lineage, turn safety, nothing lost, nothing written when unchanged, cached views', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), fc.nat(), async (ops, cutSeed) => {
        const { store, steps } = await run(ops)
        expectInvariants(store.log, steps, cutSeed)
      }),
      { numRuns: 300 },
    )
  })
})
