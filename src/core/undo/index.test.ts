import { describe, expect, it } from 'vitest'
import { type CompactionEvent, isBoundary, type SessionEvent } from '../events'
import { newCompactionEvent } from '../events/new-event'
import { project } from '../projection'
import { compactListed, depsFor, events, idString, recordingSummarizer, storeOf } from '../testing'
import { columnsOf, viewEntryOf } from '../view/columns'
import { undoablePass, undoBoundary } from '.'

type Store = ReturnType<typeof storeOf>

const deps = (store: Store) => {
  const found = depsOf.get(store) ?? depsFor(store)
  depsOf.set(store, found)
  return found
}

/** Each store's dependencies, kept across its passes (their ids follow on). */
const depsOf = new WeakMap<Store, ReturnType<typeof depsFor>>()

/** One pass of the store's session: the last `turns` turns kept, the rest summarized (or, without a summarizer, left out). */
async function pass(store: Store, turns: number, summarize: boolean): Promise<CompactionEvent> {
  const summarizer = summarize ? recordingSummarizer() : null
  await compactListed({ session: { id: 's', metadata: {} }, strategy: { window: { lastTurns: turns }, summarizer } }, deps(store))
  return store.log.findLast((event): event is CompactionEvent => event.type === 'COMPACTION')!
}

/** The undo of a pass as the service writes it, appended: the view before it, then what came after it but its summary. */
function undo(store: Store, target: CompactionEvent) {
  const log = store.log
  const prefix = log.slice(0, target.seq - 1)
  const named = prefix.findLast(isBoundary)
  const summary = new Set(target.boundary.summary)
  const after = project(log).filter((event) => event.seq > target.seq && !summary.has(event.id))
  const boundary = undoBoundary(
    columnsOf(project(log)),
    { named: named?.boundary ?? null, view: project(prefix).map(viewEntryOf) },
    after.map(viewEntryOf),
    target.id,
  )
  store.appendNow([newCompactionEvent({ id: `undo-${target.id}`, timestamp: 't' }, boundary)])
  return boundary
}

/** The view of the log as if these passes had never run: them and their summary events taken out. */
const withoutPasses = (log: readonly SessionEvent[], ...passes: CompactionEvent[]) => {
  const gone = new Set(passes.flatMap((p) => [p.id, ...p.boundary.summary]))
  return idString(project(log.filter((event) => !gone.has(event.id) && !event.id.startsWith('undo-'))))
}

describe('undoing a pass', () => {
  it('brings back what it covered, keeps what came after it, and names the pass it undoes', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2 U3 A3'))
    const p = await pass(store, 1, false)
    expect(idString(project(store.log))).toBe('S1 U3 A3')
    store.appendNow(events('U4 A4'))
    const boundary = undo(store, p)
    expect(boundary).toMatchObject({
      pinned: [],
      summary: [],
      preserved: ['S1', 'U1', 'A1', 'U2', 'A2', 'U3', 'A3', 'U4', 'A4'],
      undoes: p.id,
      coveredEventCount: 0,
    })
    expect(boundary.tokensEstimatedSaved).toBeLessThan(0) // the view grows back
    expect(idString(project(store.log))).toBe('S1 U1 A1 U2 A2 U3 A3 U4 A4')
    expect(idString(project(store.log))).toBe(withoutPasses(store.log, p))
  })

  it('takes a summary out of the view: its summary events leave, the prior view comes back', async () => {
    const store = storeOf(events('U1 A1 U2 A2 U3 A3'))
    const p = await pass(store, 1, true)
    expect(project(store.log).filter((event) => event.synthetic)).toHaveLength(2)
    store.appendNow(events('U4 A4'))
    const boundary = undo(store, p)
    expect(boundary.coveredEventCount).toBe(2) // the summary turn
    expect(idString(project(store.log))).toBe('U1 A1 U2 A2 U3 A3 U4 A4')
  })

  it('after an undo the pass before it is the one that may be undone, and undoing it too gives the log as if neither ran', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2 U3 A3'))
    const p1 = await pass(store, 2, true)
    store.appendNow(events('U4 A4 U5 A5'))
    const p2 = await pass(store, 1, true)
    const newestFirst = () => store.log.filter((e): e is CompactionEvent => e.type === 'COMPACTION').reverse()
    expect(undoablePass(newestFirst())?.id).toBe(p2.id)
    undo(store, p2)
    expect(idString(project(store.log))).toBe(withoutPasses(store.log, p2))
    expect(undoablePass(newestFirst())?.id).toBe(p1.id)
    store.appendNow(events('U6'))
    undo(store, p1)
    expect(idString(project(store.log))).toBe('S1 U1 A1 U2 A2 U3 A3 U4 A4 U5 A5 U6')
    expect(idString(project(store.log))).toBe(withoutPasses(store.log, p1, p2))
    expect(undoablePass(newestFirst())).toBeNull()
  })
})
