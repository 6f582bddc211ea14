/** The spec's invariant over a whole log, checked by replaying it (for workers tests and the Node client tests alike). */
import { expect } from 'vitest'

/**
 * Checks a whole log against the spec's invariant that nothing leaves the view except through a
 * boundary, replaying it with this checker's own bookkeeping (not the service's projection):
 * - a pass (COMPACTION): the view just before it is exactly what it names (pinned + preserved)
 *   plus what it counts as covered, and nothing it covers is pinned then;
 * - an undo (COMPACTION with `undoes`): the view is the one before the undone pass, plus what
 *   came after it, without its summary events;
 * - a REWIND: the view is the view as of its point (`at` or `before` its `to`, empty for null),
 *   pins as they were there, and `coveredEventCount` counts the messages that left;
 * - a PINS event changes no view;
 * - a boundary's clearing names messages the boundary keeps, and calls those messages hold.
 * Answers the final view and the ids of every event some pass covered.
 */
export function expectNothingLost(events: any[]): { view: { id: string }[]; covered: Set<string> } {
  // Whether an event was pinned as it was appended: the first PINS event naming it says (unpinning
  // it: it was); one never named shows it in `pinned`, its state now.
  const firstNamed = new Map<string, 'pin' | 'unpin'>()
  for (const e of events)
    if (e.type === 'PINS')
      for (const kind of ['pin', 'unpin'] as const)
        for (const id of e.pins[kind]) if (!firstNamed.has(id)) firstNamed.set(id, kind)
  let view: string[] = []
  let pins = new Set<string>()
  const covered = new Set<string>()
  const byId = new Map<string, any>()
  /** The view and pins just after each event, by its id (a boundary's summaries share its snapshot). */
  const after = new Map<string, { view: string[]; pins: Set<string>; index: number }>()
  const passes = new Map<string, { before: string[]; summaries: Set<string> }>()
  const named = (b: any): string[] => [...b.pinned, ...b.summary, ...b.preserved]
  const sameIds = (actual: string[], expected: string[], what: string) =>
    expect([...actual].sort(), what).toEqual([...expected].sort())

  for (let i = 0; i < events.length; i++) {
    const event = events[i]
    const at = `${event.type} ${event.id} (seq ${event.seq})`
    // A boundary is written together with the summary events that follow it.
    let end = i + 1
    if (event.type === 'COMPACTION') while (end < events.length && events[end].synthetic) end++
    const summaries = events.slice(i + 1, end).map((e) => e.id)
    for (const e of events.slice(i, end)) byId.set(e.id, e)

    if (event.type === 'MESSAGE') {
      view.push(event.id)
      if ((firstNamed.get(event.id) ?? (event.pinned ? 'unpin' : 'pin')) === 'unpin') pins.add(event.id)
    } else if (event.type === 'PINS') {
      pins = new Set(pins)
      for (const id of event.pins.pin) pins.add(id)
      for (const id of event.pins.unpin) pins.delete(id)
    } else if (event.type === 'COMPACTION' && event.boundary.undoes === undefined) {
      const b = event.boundary
      sameIds(b.summary, summaries, `${at}: its summary events follow it`)
      const kept = [...b.pinned, ...b.preserved]
      for (const id of kept) expect(view.includes(id), `${at} names ${id}, which was not in the view`).toBe(true)
      const left = view.filter((id) => !kept.includes(id))
      expect(left.length, `${at}: view of ${view.length} ≠ ${kept.length} named + ${b.coveredEventCount} covered`).toBe(
        b.coveredEventCount,
      )
      for (const id of left) expect(pins.has(id), `${at} covers ${id}, which was pinned`).toBe(false)
      expectClearingOf(b, at, byId)
      for (const id of left) covered.add(id)
      passes.set(event.id, { before: view, summaries: new Set(summaries) })
      view = named(b)
    } else if (event.type === 'COMPACTION') {
      const pass = passes.get(event.boundary.undoes)
      expect(pass, `${at} undoes ${event.boundary.undoes}, which is no earlier pass`).toBeDefined()
      const since = view.filter((id) => !pass!.summaries.has(id) && !pass!.before.includes(id))
      view = named(event.boundary)
      sameIds(view, [...pass!.before, ...since], `${at}: the view without the pass it undoes`)
      expectClearingOf(event.boundary, at, byId)
    } else if (event.type === 'REWIND') {
      const { to, position } = event.rewind
      let point = { view: [] as string[], pins: new Set<string>() }
      if (to !== null) {
        const target = byId.get(to)
        expect(target?.type === 'MESSAGE' && !target.synthetic, `${at} goes to ${to}, no earlier message`).toBe(true)
        const snapshot = after.get(to)!
        const previous = events[snapshot.index - 1]
        if (position === 'at') point = snapshot
        else if (previous) point = after.get(previous.id)!
      }
      const restored = named(event.boundary)
      expect(restored, `${at}: the view as of ${position} ${to}`).toEqual(point.view)
      expect(event.boundary.coveredEventCount, `${at}: messages that left the view`).toBe(
        view.filter((id) => !restored.includes(id)).length,
      )
      view = restored
      pins = point.pins
      expectClearingOf(event.boundary, at, byId)
    }
    for (const e of events.slice(i, end)) after.set(e.id, { view: [...view], pins, index: i })
    i = end - 1
  }
  return { view: view.map((id) => byId.get(id)), covered }
}

/**
 * The lineage of a whole log, by the spec's rule (round3.md §1): read backwards from the end; at a
 * REWIND, go on from its `to` (itself included for `at`, not for `before`), skipping what lies between.
 */
export function lineageOf(events: any[]): any[] {
  const index = new Map(events.map((event, i) => [event.id, i]))
  const lineage: any[] = []
  for (let i = events.length - 1; i >= 0; ) {
    const event = events[i]
    if (event.type !== 'REWIND') {
      lineage.push(event)
      i--
      continue
    }
    const { to, position } = event.rewind
    if (to === null) break
    i = index.get(to)! - (position === 'before' ? 1 : 0)
  }
  return lineage.reverse()
}

/** A boundary's `cleared` entries name messages it keeps, and calls they make (arguments) or answer (results). */
function expectClearingOf(boundary: any, at: string, byId: Map<string, any>) {
  const kept = new Set([...boundary.pinned, ...boundary.preserved])
  for (const entry of boundary.cleared ?? []) {
    expect(kept.has(entry.eventId), `${at} clears ${entry.eventId}, which it does not keep`).toBe(true)
    const message = byId.get(entry.eventId)?.message
    const ids = new Set(
      (entry.inputs ? message?.toolCalls : message?.toolResponses)?.map((item: { id: string }) => item.id) ?? [],
    )
    for (const id of entry.callIds) expect(ids.has(id), `${at} clears call ${id} of ${entry.eventId}, which has none`).toBe(true)
  }
}
