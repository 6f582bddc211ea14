/**
 * Events as the API answers them: as stored, with their current pin state last (`pinned`). Pins
 * change after an event is written, so the state is added as the JSON is written, never stored.
 */

/** The seqs of the messages pinned now. */
export type PinnedSeqs = ReadonlySet<number>

/** No message pinned: what a boundary, a summary or a PINS event says. */
export const NOTHING_PINNED: PinnedSeqs = new Set()

/** An event's stored JSON with `"pinned"` added as its last member. */
export const withPin = (json: string, pinned: boolean): string => `${json.slice(0, -1)},"pinned":${pinned}}`

/** An event object's JSON, with its pin state. */
export const eventJson = (event: { seq: number }, pinned: PinnedSeqs): string =>
  withPin(JSON.stringify(event), pinned.has(event.seq))

/** Events' JSON in the order of `seqs` (one each), each with its pin state. */
export function* pinnedEach(jsons: Iterable<string>, seqs: ArrayLike<number>, pinned: PinnedSeqs): Generator<string> {
  let at = 0
  for (const json of jsons) yield withPin(json, pinned.has(seqs[at++]!))
}

/** An event object with its pin state, for answers written as objects. */
export const withPinned = <E extends { seq: number }>(event: E, pinned: PinnedSeqs): E & { pinned: boolean } => ({
  ...event,
  pinned: pinned.has(event.seq),
})
