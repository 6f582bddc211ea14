import type { Boundary } from '../events'
import { viewBoundary } from '../lineage'
import type { ViewColumns, ViewEntry } from '../view/columns'

/**
 * The boundary of an undo: the view as if the pass had never run — the view just before it
 * (`before`: that prefix's newest boundary and its view), then what the `current` view holds
 * after the pass other than the pass's own summary (`after`: the messages appended since) — with
 * `undoes` naming the pass. What the pass covered comes back; its summary leaves.
 *
 * @example
 * undoBoundary(columnsOf(project(log)), { named, view: project(log.slice(0, pass.seq - 1)) }, appendedSince, pass.id)
 */
export function undoBoundary(
  current: ViewColumns,
  before: { named: Boundary | null; view: readonly ViewEntry[] },
  after: readonly ViewEntry[],
  passId: string,
): Boundary {
  return { ...viewBoundary(current, { named: before.named, view: [...before.view, ...after] }), undoes: passId }
}

/**
 * Which pass an undo may take back now, walking the lineage's COMPACTION events newest first
 * (`passes`): the newest pass no undo among them names (an undo is no pass). Null: none.
 *
 * @example
 * undoablePass([{ id: 'u', boundary: { undoes: 'p2' } }, { id: 'p2', boundary }, { id: 'p1', boundary }]) // p1
 */
export function undoablePass<T extends { id: string; boundary: Boundary }>(passes: Iterable<T>): T | null {
  const undone = new Set<string>()
  for (const pass of passes) {
    if (pass.boundary.undoes !== undefined) undone.add(pass.boundary.undoes)
    else if (!undone.has(pass.id)) return pass
  }
  return null
}
