import type { Usage } from '../../contract/turn-result'

/** The chat calls `/context`'s cache figures are taken over. */
export const RECENT_CALLS = 20

/** The prompt and cached prompt tokens of a session's last chat calls, oldest first (the session row's `recentUsage`). */
export type RecentUsage = [prompt: number, cached: number][]

/** The recent calls' usage with one more call's (a call that reported none leaves it as it was). */
export const withRecentUsage = (recent: RecentUsage, usage: Usage | null): RecentUsage =>
  usage ? [...recent, [usage.promptTokens, usage.cachedPromptTokens ?? 0] as [number, number]].slice(-RECENT_CALLS) : recent
