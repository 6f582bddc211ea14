import { describe, expect, it } from 'vitest'
import { atSeq, isBoundary, type NewEvent, type NewRewindEvent, type RewindPoint, type SessionEvent } from '../events'
import { newRewindEvent } from '../events/new-event'
import { project } from '../projection'
import { compactListed, depsFor, events, idString, storeOf } from '../testing'
import { columnsOf, viewEntryOf } from '../view/columns'
import {
  leftBehind,
  lineage,
  lineageRuns,
  onLineage,
  prefixEnd,
  rememberedSteps,
  rewindBoundary,
  rewindTargetProblem,
  subtractRuns,
} from '.'

const seqOf = (log: readonly SessionEvent[]) => (id: string) => log.find((event) => event.id === id)!.seq

/** A rewind to a point of the log as it is: the boundary the service would write (null: no change). */
function rewindTo(log: readonly SessionEvent[], point: RewindPoint, id = `R${log.length + 1}`): NewRewindEvent | null {
  const end = prefixEnd(point, seqOf(log))
  const prefix = log.slice(0, end)
  const named = prefix.findLast(isBoundary)
  const boundary = rewindBoundary(columnsOf(project(log)), {
    named: named?.boundary ?? null,
    view: project(prefix).map(viewEntryOf),
  })
  return boundary && newRewindEvent({ id, timestamp: 't' }, boundary, { ...point, reason: 'api' })
}

const append = (log: SessionEvent[], ...list: NewEvent[]) => {
  for (const event of list) log.push(atSeq(event, log.length + 1))
  return log
}

describe('prefixEnd', () => {
  it('ends at the event (at), before it (before), or at the empty log (null)', () => {
    const seqs = (id: string) => ({ u2: 3 })[id]!
    expect(prefixEnd({ to: 'u2', position: 'at' }, seqs)).toBe(3)
    expect(prefixEnd({ to: 'u2', position: 'before' }, seqs)).toBe(2)
    expect(prefixEnd({ to: null, position: 'at' }, seqs)).toBe(0)
  })
})

describe('a rewind', () => {
  it('restores the view as of its point: an edit drops the edited message and what followed', () => {
    const log = append([], ...events('S1 U1 A1 U2 A2'))
    const rewind = rewindTo(log, { to: 'U2', position: 'before' })!
    expect(rewind.boundary).toEqual({
      pinned: [],
      summary: [],
      preserved: ['S1', 'U1', 'A1'],
      coveredEventCount: 2,
      tokensEstimatedSaved: expect.any(Number),
      tokensBefore: expect.any(Number),
      tokensAfter: expect.any(Number),
    })
    append(log, rewind, ...events('U2b A2b'))
    expect(idString(project(log))).toBe('S1 U1 A1 U2b A2b')
    expect(lineage(log, seqOf(log))).toEqual([1, 2, 3, 6, 7, 8])
  })

  it('brings an abandoned branch back exactly, from its tip', () => {
    const log = append([], ...events('U1 A1 U2 A2'))
    append(log, rewindTo(log, { to: 'U2', position: 'before' })!, ...events('U3 A3'))
    append(log, rewindTo(log, { to: 'A2', position: 'at' })!)
    expect(idString(project(log))).toBe('U1 A1 U2 A2')
    // The lineage jumps over the abandoned U3 A3 and the first rewind.
    expect(lineage(log, seqOf(log))).toEqual([1, 2, 3, 4, 8])
  })

  it('across a compaction restores the view of that time, the summary out and the covered turns back', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2 U3 A3'))
    await compactListed(
      { session: { id: 's', metadata: {} }, strategy: { window: { lastTurns: 1 }, summarizer: null } },
      depsFor(store),
    )
    expect(idString(project(store.log))).toBe('S1 U3 A3')
    const before = rewindTo(store.log, { to: 'A2', position: 'at' })!
    expect(before.boundary.coveredEventCount).toBe(2) // U3 A3, after the point
    expect(before.boundary.tokensEstimatedSaved).toBeLessThan(0) // the view grows
    store.appendNow([before])
    expect(idString(project(store.log))).toBe('S1 U1 A1 U2 A2')
  })

  it('keeps a compaction’s parts when its point is after it: pinned and summary as they were named', async () => {
    const store = storeOf(events('S1 U1 A1 U2 A2 U3 A3'))
    await compactListed(
      { session: { id: 's', metadata: {} }, strategy: { window: { lastTurns: 1 }, summarizer: null } },
      depsFor(store),
    )
    store.appendNow(events('U4 A4'))
    const rewind = rewindTo(store.log, { to: 'U4', position: 'before' })!
    expect(rewind.boundary).toMatchObject({ pinned: ['S1'], summary: [], preserved: ['U3', 'A3'], coveredEventCount: 2 })
  })

  it('is nothing when the view would not change', () => {
    const log = append([], ...events('U1 A1'))
    expect(rewindTo(log, { to: 'A1', position: 'at' })).toBeNull()
  })

  it('to null empties the view', () => {
    const log = append([], ...events('U1 A1'))
    append(log, rewindTo(log, { to: null, position: 'at' })!)
    expect(project(log)).toEqual([])
    expect(lineage(log, seqOf(log))).toEqual([3])
  })
})

describe('rewindTargetProblem', () => {
  it('accepts a message of the conversation, and names the field for anything else', () => {
    expect(rewindTargetProblem('to', 'u1', { type: 'MESSAGE', synthetic: false })).toBeNull()
    expect(rewindTargetProblem('to', 'x', undefined)).toBe('to: no event "x" in this session')
    expect(rewindTargetProblem('at', 'b', { type: 'COMPACTION', synthetic: false })).toBe(
      'at: "b" is a COMPACTION event, not a message',
    )
    expect(rewindTargetProblem('to', 's', { type: 'MESSAGE', synthetic: true })).toMatch(/^to: "s" is a summary event/)
  })
})

describe('lineage runs', () => {
  // 1–4 U1 A1 U2 A2; 5 a REWIND before U2 (to 2); 6–7 U3 A3; 8 a REWIND at A2 (to 4).
  const rewinds = new Map([
    [5, 2],
    [8, 4],
  ])
  const rewindAtOrBefore = (seq: number) => {
    const at = [...rewinds.keys()].filter((r) => r <= seq).at(-1)
    return at === undefined ? null : { seq: at, end: rewinds.get(at)! }
  }

  it('walks back from a prefix, jumping at each rewind to its point', () => {
    expect([...lineageRuns(8, rewindAtOrBefore)]).toEqual([
      { from: 8, to: 8 },
      { from: 1, to: 4 },
    ])
    expect([...lineageRuns(7, rewindAtOrBefore)]).toEqual([
      { from: 5, to: 7 },
      { from: 1, to: 2 },
    ])
    expect([...lineageRuns(0, rewindAtOrBefore)]).toEqual([])
  })

  it('leftBehind: what one lineage has that the other has not, up to where they meet', () => {
    // From the lineage at 7 (U1 A1 R5 U3 A3) back to A2 (prefix 4): R5, U3 and A3 are left.
    expect(leftBehind(lineageRuns(7, rewindAtOrBefore), lineageRuns(4, rewindAtOrBefore))).toEqual([{ from: 5, to: 7 }])
    // To the same lineage's own earlier point: the end of it.
    expect(leftBehind(lineageRuns(4, rewindAtOrBefore), lineageRuns(2, rewindAtOrBefore))).toEqual([{ from: 3, to: 4 }])
    expect(leftBehind(lineageRuns(4, rewindAtOrBefore), lineageRuns(4, rewindAtOrBefore))).toEqual([])
  })

  it('onLineage: a seq on one of the runs, read only as far back as the seq asked for', () => {
    let read = 0
    const runs = lineageRuns(8, (seq) => {
      read++
      return rewindAtOrBefore(seq)
    })
    const on = onLineage(runs)
    expect([8, 5, 6, 7].map(on)).toEqual([true, false, false, false])
    expect(read).toBe(2)
    expect([1, 2, 3, 4, 0].map(on)).toEqual([true, true, true, true, true])
    expect(on(9)).toBe(false)
  })

  it('subtractRuns cuts runs around others', () => {
    expect(
      subtractRuns(
        [{ from: 1, to: 10 }],
        [
          { from: 3, to: 4 },
          { from: 8, to: 12 },
        ],
      ),
    ).toEqual([
      { from: 1, to: 2 },
      { from: 5, to: 7 },
    ])
    expect(subtractRuns([{ from: 5, to: 6 }], [{ from: 1, to: 9 }])).toEqual([])
  })
})

describe('rememberedSteps', () => {
  /** A log's REWINDs (seq → where its point's prefix ends), read by a counted lookup. */
  function rewindsOf(rewinds: Map<number, number>) {
    const reads: number[] = []
    const read = (seq: number) => {
      reads.push(seq)
      const newest = Math.max(0, ...[...rewinds.keys()].filter((at) => at <= seq))
      return newest === 0 ? null : { seq: newest, end: rewinds.get(newest)! }
    }
    return { reads, read }
  }

  it('answers as the log does, each stretch read once: a second walk reads nothing', () => {
    const { reads, read } = rewindsOf(
      new Map([
        [5, 2],
        [9, 7],
      ]),
    )
    const steps = rememberedSteps(read)
    const walk = () => [...lineageRuns(Number.MAX_SAFE_INTEGER, steps.at)]
    expect(walk()).toEqual([
      { from: 9, to: Number.MAX_SAFE_INTEGER },
      { from: 5, to: 7 },
      { from: 1, to: 2 },
    ])
    const first = reads.length
    expect(walk()).toEqual([
      { from: 9, to: Number.MAX_SAFE_INTEGER },
      { from: 5, to: 7 },
      { from: 1, to: 2 },
    ])
    expect(reads.length).toBe(first)
    for (let seq = 1; seq <= 12; seq++) expect(steps.at(seq)).toEqual(read(seq))
  })

  it('a REWIND written past what was read is seen: the stretch it cuts ends before it', () => {
    const rewinds = new Map([[5, 2]])
    const steps = rememberedSteps(rewindsOf(rewinds).read)
    expect(steps.at(Number.MAX_SAFE_INTEGER)).toEqual({ seq: 5, end: 2 })
    rewinds.set(12, 10)
    steps.rewound(12)
    expect(steps.at(Number.MAX_SAFE_INTEGER)).toEqual({ seq: 12, end: 10 })
    expect(steps.at(11)).toEqual({ seq: 5, end: 2 })
  })

  it('onLineage: the lineage walked once, walked again after a REWIND', () => {
    const rewinds = new Map([[5, 2]])
    const { reads, read } = rewindsOf(rewinds)
    const steps = rememberedSteps(read)
    expect([1, 2, 3, 4, 5, 9].map(steps.onLineage)).toEqual([true, true, false, false, true, true])
    const walked = reads.length
    expect(steps.onLineage(3)).toBe(false)
    expect(reads.length).toBe(walked)
    // A REWIND at 10 back to 3: 3 is on the lineage again, 5–9 are not.
    rewinds.set(10, 3)
    steps.rewound(10)
    expect([3, 4, 5, 9, 10].map(steps.onLineage)).toEqual([true, false, false, false, true])
  })

  it('forgets everything read when told (a write rolled back, the log wiped)', () => {
    const rewinds = new Map([[5, 2]])
    const { reads, read } = rewindsOf(rewinds)
    const steps = rememberedSteps(read)
    steps.at(8)
    rewinds.clear()
    expect(steps.at(8)).toEqual({ seq: 5, end: 2 })
    steps.forget()
    expect(steps.at(8)).toBeNull()
    expect(reads).toEqual([8, 8])
  })
})
