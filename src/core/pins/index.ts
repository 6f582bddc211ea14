import type { PinChange } from '../events'

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
 * The pins of a view from the seqs of the messages pinned now and of those its newest boundary
 * holds because of a pin; {@link NO_PINS} when there are none.
 *
 * @example
 * const pins = viewPins(new Set([7]), new Set())
 */
export function viewPins(pinned: ReadonlySet<number>, held: ReadonlySet<number>): ViewPins {
  if (pinned.size === 0 && held.size === 0) return NO_PINS
  return { pinned: (seq) => pinned.has(seq), held: (seq) => held.has(seq) }
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
