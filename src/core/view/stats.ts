import { isSystem, isTurnStart, type MessageSkeleton } from '../events'
import { NO_PINS, type ViewPins } from '../pins'
import { analyzeColumns } from '.'
import { columnsOf, type ViewColumns } from './columns'

/** The counters a store keeps for its view, so that reading them never walks the log. */
export interface ViewStats {
  /** Events in the view (not in the log: the log's count is the session's version). */
  viewEvents: number
  /** The view's tokens, as a token trigger measures them. */
  viewTokens: number
  /** Turn starts as a pass counts them: a message pinned now starts none (see `analyzeColumns`). */
  turns: number
  /** The latest system message: a newer one replaces its tokens in the view's tokens. */
  latestSystem: { seq: number; tokens: number } | null
}

export const EMPTY_STATS: ViewStats = { viewEvents: 0, viewTokens: 0, turns: 0, latestSystem: null }

/** The stats of a view with its pins (O(view)): after a boundary, or a change of pins. */
export function statsOfColumns(view: ViewColumns, pins: ViewPins = NO_PINS): ViewStats {
  const analysis = analyzeColumns(view, pins)
  const latest = analysis.latestSystem
  return {
    viewEvents: view.length,
    viewTokens: analysis.tokens,
    turns: analysis.turns,
    latestSystem: latest >= 0 ? { seq: view.seq(latest), tokens: view.tokens(latest) } : null,
  }
}

/** The same, of a view given as events. */
export const statsOf = (view: readonly (MessageSkeleton & { seq: number })[], pins: ViewPins = NO_PINS): ViewStats =>
  statsOfColumns(columnsOf(view), pins)

/**
 * The stats after messages are appended with no boundary among them and no change to the pins of
 * the view's messages (O(appended)): what a store does on every ordinary append. `pins` says which
 * of the appended ones are pinned.
 *
 * @example
 * advanceStats(statsOf(view), newMessages) // equals statsOf([...view, ...newMessages])
 */
export function advanceStats(
  stats: ViewStats,
  appended: readonly (MessageSkeleton & { seq: number })[],
  pins: ViewPins = NO_PINS,
): ViewStats {
  let { viewEvents, viewTokens, turns, latestSystem } = stats
  for (const event of appended) {
    viewEvents += 1
    if (isSystem(event)) {
      viewTokens += event.tokens - (latestSystem?.tokens ?? 0)
      latestSystem = { seq: event.seq, tokens: event.tokens }
      continue
    }
    viewTokens += event.tokens
    if (isTurnStart(event) && !pins.pinned(event.seq)) turns += 1
  }
  return { viewEvents, viewTokens, turns, latestSystem }
}
