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
 * - a boundary's clearing names messages the boundary keeps, and calls those messages hold, each
 *   call still answered in the view; a pass that covers nothing (a clearing) leaves the view as it
 *   was, in its order; a pass keeps the clearing of every message it keeps (the same bytes later);
 * - a pass inside the newest turn (it keeps the turn's user message and covers something after
 *   it) covers nothing before it, puts its summary right after it, and covers whole tool groups,
 *   never the newest;
 * - blobs: no event names a blob the session does not hold (`blobs`, when given: the blobs the
 *   session holds), and the session holds none that no event names.
 * Answers the final view and the ids of every event some pass covered.
 */
export function expectNothingLost(
  events: any[],
  options: { blobs?: Iterable<string> } = {},
): { view: { id: string }[]; covered: Set<string> } {
  if (options.blobs) expectBlobsHeld(events, new Set(options.blobs))
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
  /** The clearing in force: each cleared message's id, and its cleared calls (`inputs` marked). */
  let clearing = new Map<string, Set<string>>()
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
      // A pass that covers nothing (a clearing) changes no message of the view, nor its order.
      if (left.length === 0) expect(named(b), `${at} covers nothing, so keeps the view as it was`).toEqual(view)
      // What it keeps stays cleared as it was: a result shown again would change the bytes sent.
      const now = clearedBy(b)
      for (const [id, calls] of clearing)
        if (kept.includes(id))
          for (const c of calls) expect(now.get(id)?.has(c), `${at} keeps ${id} but drops its clearing of ${c}`).toBe(true)
      for (const id of left) covered.add(id)
      passes.set(event.id, { before: view, summaries: new Set(summaries) })
      const before = view
      view = named(b)
      expectClearingOf(b, at, byId, view)
      expectInTurnShape(b, before, left, pins, at, byId)
    } else if (event.type === 'COMPACTION') {
      const pass = passes.get(event.boundary.undoes)
      expect(pass, `${at} undoes ${event.boundary.undoes}, which is no earlier pass`).toBeDefined()
      const since = view.filter((id) => !pass!.summaries.has(id) && !pass!.before.includes(id))
      view = named(event.boundary)
      sameIds(view, [...pass!.before, ...since], `${at}: the view without the pass it undoes`)
      expectClearingOf(event.boundary, at, byId, view)
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
      expectClearingOf(event.boundary, at, byId, view)
    }
    if (event.type !== 'MESSAGE' && event.type !== 'PINS') clearing = clearedBy(event.boundary)
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

/** The calls a boundary's clearing clears, by message (an input's marked `input:`). */
const clearedBy = (boundary: any): Map<string, Set<string>> =>
  new Map(
    (boundary.cleared ?? []).map((entry: any) => [
      entry.eventId,
      new Set(entry.callIds.map((id: string) => (entry.inputs ? `input:${id}` : id))),
    ]),
  )

/**
 * A boundary's `cleared` entries name messages it keeps, and calls they make (arguments) or answer
 * (results); a cleared result's call is in the view (`view`: after the boundary), so the prompt
 * stays valid on every wire. (A cleared call's result may not be written yet: a pass before a
 * tool result is stored.)
 */
function expectClearingOf(boundary: any, at: string, byId: Map<string, any>, view: string[]) {
  const kept = new Set([...boundary.pinned, ...boundary.preserved])
  const calls = new Set(view.flatMap((id) => (byId.get(id)?.message?.toolCalls ?? []).map((c: { id: string }) => c.id)))
  for (const entry of boundary.cleared ?? []) {
    expect(kept.has(entry.eventId), `${at} clears ${entry.eventId}, which it does not keep`).toBe(true)
    const message = byId.get(entry.eventId)?.message
    const ids = new Set(
      (entry.inputs ? message?.toolCalls : message?.toolResponses)?.map((item: { id: string }) => item.id) ?? [],
    )
    for (const id of entry.callIds) {
      expect(ids.has(id), `${at} clears call ${id} of ${entry.eventId}, which has none`).toBe(true)
      if (!entry.inputs) expect(calls.has(id), `${at} clears the result of ${id}, whose call its view lacks`).toBe(true)
    }
  }
}

/**
 * A pass inside the newest turn — it keeps the turn's user message (the view's newest that is not a
 * summary) and covers something after it — covers nothing before that message, puts its summary
 * right after it, and covers whole tool groups (an assistant message's calls with their results),
 * never the newest group. `left`: what the pass covers of `view`, the view before it (`pins` then).
 */
function expectInTurnShape(boundary: any, view: string[], left: string[], pins: Set<string>, at: string, byId: Map<string, any>) {
  const message = (id: string) => byId.get(id)
  const start = view.findLastIndex((id) => message(id)?.message?.role === 'user' && !message(id)?.synthetic)
  if (start < 0 || left.includes(view[start]!)) return
  const inTurn = left.filter((id) => view.indexOf(id) > start)
  if (inTurn.length === 0) return
  expect(
    left.filter((id) => view.indexOf(id) < start),
    `${at} covers steps of the newest turn, so nothing before its user message ${view[start]}`,
  ).toEqual([])
  expect(boundary.pinned.at(-1), `${at}: its summary comes right after the turn's user message ${view[start]}`).toBe(view[start])
  // The turn's groups: each non-summary assistant message after the user message starts one.
  const groups: string[][] = []
  for (const id of view.slice(start + 1)) {
    if (message(id)?.synthetic) continue
    if (message(id)?.message?.role === 'assistant' || groups.length === 0) groups.push([id])
    else groups.at(-1)!.push(id)
  }
  const gone = new Set(left)
  for (const group of groups) {
    // A pinned step is held, whatever its group; the rest of a group goes or stays together.
    const steps = group.filter((id) => !pins.has(id))
    const out = steps.filter((id) => gone.has(id))
    expect(out.length === 0 || out.length === steps.length, `${at} splits the tool group of ${group[0]}`).toBe(true)
  }
  const newest = groups.at(-1) ?? []
  expect(
    newest.filter((id) => gone.has(id)),
    `${at} covers the newest tool group of the turn`,
  ).toEqual([])
}

/** The blobs the events name (a part's `blob`, in a message's content or a tool response's data). */
export function blobsNamed(events: any[]): Map<string, string> {
  const named = new Map<string, string>()
  for (const event of events) {
    const message = event.message
    if (!message) continue
    const parts = [message.content, ...(message.toolResponses ?? []).map((r: any) => r.data)].filter(Array.isArray).flat()
    for (const part of parts) if (typeof part?.blob === 'string' && !named.has(part.blob)) named.set(part.blob, event.id)
  }
  return named
}

/** No event names a blob the session does not hold, and the session holds none that no event names. */
function expectBlobsHeld(events: any[], held: Set<string>) {
  const named = blobsNamed(events)
  for (const [blob, id] of named) expect(held.has(blob), `${id} names ${blob}, which the session does not hold`).toBe(true)
  for (const blob of held) expect(named.has(blob), `the session holds ${blob}, which no event names`).toBe(true)
}

/**
 * A jsonl export's events carry each blob's bytes once (`data` beside `blob`), in the first event
 * naming it, and those bytes are the blob they name (their SHA-256).
 */
export async function expectBlobsExportedOnce(exported: any[]) {
  const seen = new Set<string>()
  for (const event of exported) {
    const message = event.message
    if (!message) continue
    const parts = [message.content, ...(message.toolResponses ?? []).map((r: any) => r.data)].filter(Array.isArray).flat()
    for (const part of parts) {
      if (typeof part?.blob !== 'string') continue
      const first = !seen.has(part.blob)
      seen.add(part.blob)
      expect(typeof part.data === 'string', `${event.id}: ${part.blob}'s bytes ${first ? 'missing' : 'again'}`).toBe(first)
      if (!first) continue
      const bytes = Uint8Array.from(atob(part.data), (c) => c.charCodeAt(0))
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
      const hex = [...digest].map((b) => b.toString(16).padStart(2, '0')).join('')
      expect(`sha256:${hex}`, `${event.id}: the bytes exported for ${part.blob}`).toBe(part.blob)
    }
  }
}
