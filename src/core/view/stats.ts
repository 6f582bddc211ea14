import { isSystem, isTurnStart, type MessageSkeleton } from '../events'
import { analyzeColumns } from '.'
import { columnsOf, type ViewColumns } from './columns'

/** The counters a store keeps for its view, so that reading them never walks the log. */
export interface ViewStats {
  /** Events in the view (not in the log: the log's count is the session's version). */
  viewEvents: number
  /** The view's tokens, as a token trigger measures them. */
  viewTokens: number
  turns: number
  /** The latest system message: a newer one replaces its tokens in the view's tokens. */
  latestSystem: { seq: number; tokens: number } | null
}

export const EMPTY_STATS: ViewStats = { viewEvents: 0, viewTokens: 0, turns: 0, latestSystem: null }

/** The stats of a view (O(view)): after a boundary, or on a cold start. */
export function statsOfColumns(view: ViewColumns): ViewStats {
  const analysis = analyzeColumns(view)
  const latest = analysis.latestSystem
  return {
    viewEvents: view.length,
    viewTokens: analysis.tokens,
    turns: analysis.turns,
    latestSystem: latest >= 0 ? { seq: view.seq(latest), tokens: view.tokens(latest) } : null,
  }
}

/** The same, of a view given as events. */
export const statsOf = (view: readonly (MessageSkeleton & { seq: number })[]): ViewStats => statsOfColumns(columnsOf(view))

/**
 * The stats after messages are appended with no boundary among them (O(appended)): what a store
 * does on every ordinary append.
 *
 * @example
 * advanceStats(statsOf(view), newMessages) // equals statsOf([...view, ...newMessages])
 */
export function advanceStats(stats: ViewStats, appended: readonly (MessageSkeleton & { seq: number })[]): ViewStats {
  let { viewEvents, viewTokens, turns, latestSystem } = stats
  for (const event of appended) {
    viewEvents += 1
    if (isSystem(event)) {
      viewTokens += event.tokens - (latestSystem?.tokens ?? 0)
      latestSystem = { seq: event.seq, tokens: event.tokens }
      continue
    }
    viewTokens += event.tokens
    if (isTurnStart(event)) turns += 1
  }
  return { viewEvents, viewTokens, turns, latestSystem }
}
