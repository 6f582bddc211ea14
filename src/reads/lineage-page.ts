import { lineageRuns, type MessageEvent } from '../core'
import type { SessionLog } from '../store/log/log'

/** Which page of the lineage: its order, the event it starts at (included; none: an end), how many. */
export interface LineageQuery {
  order: 'asc' | 'desc'
  fromSeq?: number
  limit: number
}

/**
 * A page of the messages of the lineage a client was shown (user, assistant, tool and inline
 * system messages; not summaries, not abandoned branches), newest or oldest first, with whether
 * more follow. Reads the page's rows and the lineage's REWINDs, never the log.
 *
 * @example
 * lineagePage(log, { order: 'desc', limit: 20 }) // the newest 20
 */
export function lineagePage(log: SessionLog, query: LineageQuery): { events: MessageEvent[]; more: boolean } {
  const wanted = query.limit + 1
  const events: MessageEvent[] = []
  const rewindAt = log.rewinds.at
  if (query.order === 'desc') {
    for (const run of lineageRuns(query.fromSeq ?? Number.MAX_SAFE_INTEGER, rewindAt)) {
      const before = run.to === Number.MAX_SAFE_INTEGER ? run.to : run.to + 1
      events.push(...(log.shownBefore(before, wanted - events.length, run.from) as MessageEvent[]))
      if (events.length >= wanted) break
    }
  } else {
    // The lineage's runs, oldest first: as many as the lineage has REWINDs, each one row.
    const runs = [...lineageRuns(Number.MAX_SAFE_INTEGER, rewindAt)].reverse()
    for (const run of runs) {
      if (query.fromSeq !== undefined && run.to < query.fromSeq) continue
      const from = Math.max(run.from, query.fromSeq ?? 1)
      events.push(...(log.shownFrom(from, run.to, wanted - events.length) as MessageEvent[]))
      if (events.length >= wanted) break
    }
  }
  return { events: events.slice(0, query.limit), more: events.length > query.limit }
}
