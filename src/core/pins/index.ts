import type { Boundary, PinChange } from '../events'

/**
 * What a view's analysis knows of pins, by seq: which events are pinned now, and which the newest
 * boundary holds in its pinned part because of a pin (`Boundary.held`).
 */
export interface ViewPins {
  pinned(seq: number): boolean
  held(seq: number): boolean
}

/** No event pinned, none held. */
export const NO_PINS: ViewPins = { pinned: () => false, held: () => false }

/**
 * The pins of a view from the ids pinned now and the newest boundary (null: none), given each
 * named event's seq by id.
 *
 * @example
 * const pins = viewPins(new Set(['u3']), newestBoundary?.boundary ?? null, (id) => seqs.get(id))
 */
export function viewPins(
  pinned: ReadonlySet<string>,
  boundary: Boundary | null,
  seqOf: (id: string) => number | undefined,
): ViewPins {
  const seqsOf = (ids: Iterable<string>) => new Set([...ids].flatMap((id) => seqOf(id) ?? []))
  const pinnedSeqs = seqsOf(pinned)
  const heldSeqs = seqsOf(boundary?.held ?? [])
  return { pinned: (seq) => pinnedSeqs.has(seq), held: (seq) => heldSeqs.has(seq) }
}

/**
 * The ids pinned after a PINS change: its pins added, its unpins taken away (an id in both is
 * pinned: the pin is applied last).
 *
 * @example
 * applyPins(new Set(['a']), { pin: ['b'], unpin: ['a'] }) // Set { 'b' }
 */
export function applyPins(pinned: ReadonlySet<string>, change: PinChange): Set<string> {
  const next = new Set(pinned)
  for (const id of change.unpin) next.delete(id)
  for (const id of change.pin) next.add(id)
  return next
}
