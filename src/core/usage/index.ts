/** What model calls spent, as the upstreams reported it: per notice, per session, per day. */

/** Tokens one notice spends, as the upstreams reported them (the usage report's columns). */
export interface UsageEntry {
  model: string
  /** Requests the model answered (a summary call counts none). */
  turns: number
  promptTokens: number
  cachedPromptTokens: number
  completionTokens: number
  summaryTokens: number
}

/** Per-session usage totals (`/context`'s `usage`), and a day's per model (`/v1/usage`). */
export interface UsageTotals {
  turns: number
  promptTokens: number
  cachedPromptTokens: number
  completionTokens: number
  summaryTokens: number
  totalTokens: number
}

export const NO_USAGE: UsageTotals = {
  turns: 0,
  promptTokens: 0,
  cachedPromptTokens: 0,
  completionTokens: 0,
  summaryTokens: 0,
  totalTokens: 0,
}

/** Totals with one entry added (`totalTokens` = prompt + completion + summary). */
export function addUsage(totals: UsageTotals, entry: UsageEntry): UsageTotals {
  return {
    turns: totals.turns + entry.turns,
    promptTokens: totals.promptTokens + entry.promptTokens,
    cachedPromptTokens: totals.cachedPromptTokens + entry.cachedPromptTokens,
    completionTokens: totals.completionTokens + entry.completionTokens,
    summaryTokens: totals.summaryTokens + entry.summaryTokens,
    totalTokens: totals.totalTokens + entry.promptTokens + entry.completionTokens + entry.summaryTokens,
  }
}
