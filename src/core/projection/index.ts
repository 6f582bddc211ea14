import { clearedById, clearedEntry, clearedEvent } from '../clearing'
import {
  type BoundaryEvent,
  type BoundarySkeleton,
  type ClearedEntry,
  isBoundary,
  type MessageEvent,
  namedIds,
  type SessionEvent,
} from '../events'

/** An event that is neither a message nor a boundary (PINS): it changes no view. */
type NotInView = { type: 'PINS' }

/**
 * The view a log projects to, advanced by events appended after it.
 *
 * With no boundary among `appended`, the view simply gains the new messages. Otherwise the
 * newest boundary B (a COMPACTION or a REWIND) decides: the view becomes the events B names, in
 * the order it names them, then every message after B that B does not name (a pass's summary
 * events come right after it and are named by it, so they do not appear twice). A pass names
 * only events of the view it was computed from or written with it, so `view` plus `appended` is
 * enough for it; a rewind may name any earlier message, found by `stored` (by id) when it is in
 * neither.
 *
 * @example
 * extendView([], log)          // the projection of a whole log
 * extendView(cachedView, tail, (id) => byId.get(id)) // the same answer, from a cached view and the events after it
 */
export function extendView<M extends { type: 'MESSAGE'; id: string }>(
  view: readonly M[],
  appended: readonly (M | BoundarySkeleton | NotInView)[],
  stored: (id: string) => M | undefined = () => undefined,
): M[] {
  let last = -1
  for (let i = appended.length - 1; i >= 0; i--) {
    if (isBoundary(appended[i]!)) {
      last = i
      break
    }
  }
  const messages = (events: readonly (M | BoundarySkeleton | NotInView)[]) => {
    const list: M[] = []
    for (const event of events) if (event.type === 'MESSAGE') list.push(event as M)
    return list
  }
  if (last < 0) return [...view, ...messages(appended)]

  const boundary = appended[last] as BoundarySkeleton
  const pool = new Map<string, M>()
  for (const event of view) pool.set(event.id, event)
  for (const event of messages(appended)) pool.set(event.id, event)
  return [...viewAfter(boundary, (id) => pool.get(id) ?? stored(id), messages(appended.slice(last + 1)))]
}

/** A named event under its boundary's clearing: a whole event cleared, a view entry (no body) with its cleared tokens. */
const underClearing = <M>(event: M, entry: ClearedEntry): M =>
  (typeof event === 'object' && event !== null && 'message' in event
    ? clearedEvent(event as unknown as MessageEvent, entry)
    : clearedEntry(event as unknown as { tokens: number }, entry)) as M

/**
 * The view after a boundary, one event at a time (the rule of {@link extendView}): the events
 * the boundary names, in its order, found by id — those it lists as cleared, cleared — then the
 * messages after it that it does not name. A store can walk `after` from storage without holding it.
 *
 * @example
 * for (const entry of viewAfter(boundary, (id) => byId.get(id), entriesAfter(boundarySeq))) view.push(entry)
 */
export function* viewAfter<M extends { id: string }>(
  boundary: BoundarySkeleton,
  named: (id: string) => M | undefined,
  after: Iterable<M>,
): Generator<M> {
  const ids = namedIds(boundary.boundary)
  const cleared = clearedById(boundary.boundary.cleared)
  for (const id of ids) {
    const event = named(id)
    if (!event) throw new Error(`boundary ${boundary.id} names ${id}, which is not a message of the log before it`)
    const entry = cleared.get(id)
    yield entry ? underClearing(event, entry) : event
  }
  const namedSet = new Set(ids)
  for (const event of after) if (!namedSet.has(event.id)) yield event
}

/**
 * Projects a whole log to its view. Boundaries are never part of a view.
 *
 * @example
 * project([u1, a1, boundary, summary, u2]) // [summary, ...named, u2]
 */
export const project = (log: readonly SessionEvent[]): MessageEvent[] => extendView<MessageEvent>([], log)

/**
 * Whether an event is in the view, knowing only the newest boundary (null: none): the rule of
 * {@link extendView} for one event, so a page of the log can be marked without the view.
 *
 * @example
 * const inView = viewMembership(newestBoundary)
 * page.filter((event) => !inView(event)) // the page's events outside the view
 */
export function viewMembership(
  newest: BoundaryEvent | null,
): (event: { type: SessionEvent['type']; id: string; seq: number }) => boolean {
  if (newest === null) return (event) => event.type === 'MESSAGE'
  const named = new Set(namedIds(newest.boundary))
  return (event) => event.type === 'MESSAGE' && (event.seq > newest.seq || named.has(event.id))
}
