import { statsOfColumns, summaryInNewestTurn, textOf } from '../../core'
import type { RewindFirst } from './rewind-first'
import type { SessionRecord } from './session-row'
import type { ViewCache } from './view-cache'

/**
 * What a turn knows of its session before it builds the prompt (the turns' `PromptState`), as the
 * request sees it: counters of a pending rewind's view, else the session's; no bodies but the
 * latest system message's.
 */
export function promptStateOf(parts: { view: ViewCache }, record: SessionRecord, rewind: RewindFirst) {
  const stats = rewind.pending ? statsOfColumns(rewind.pending.view) : record.stats
  const latest = stats.latestSystem
  const system = latest ? parts.view.event(latest.seq) : null
  const columns = rewind.viewOf(record)
  return {
    policy: record.policy,
    viewTokens: stats.viewTokens,
    calibration: record.calibration,
    latestSystem: latest && system ? { tokens: latest.tokens, content: textOf(system.message.content) } : null,
    recallNeeded:
      (rewind.pending?.event.boundary.cleared ?? parts.view.clearedOf(record).cleared).length > 0 || summaryInNewestTurn(columns),
  }
}
