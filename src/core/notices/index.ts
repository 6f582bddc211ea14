/**
 * What a session tells the world of what happened to it: one notice per turn, pass, rewind, fork,
 * failure or ending, written with the change that caused it (a transactional outbox) and passed
 * to its user's index object, which counts its usage and delivers it to the user's webhooks.
 */

/** The event types a webhook may subscribe to (`webhook.test` is sent only when asked for). */
export const WEBHOOK_EVENT_TYPES = [
  'turn.completed',
  'turn.requires_action',
  'turn.failed',
  'session.compacted',
  'compaction.failed',
  'session.rewound',
  'session.forked',
  'session.deleted',
  'session.expired',
] as const

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

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

/** One notice: a webhook event (`type`) or only usage to count (`usage.recorded`, never delivered). */
export interface Notice {
  /** Unique, and the same on every attempt to deliver it (`webhook-id`). */
  id: string
  type: WebhookEventType | 'usage.recorded'
  /** When it happened (ISO 8601). */
  timestamp: string
  /** Thin: ids and counts, never message text. */
  data: { sessionId: string } & Record<string, unknown>
  usage?: UsageEntry
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

/** Whether an endpoint subscribed to `events` is sent a notice of `type`. */
export const subscribes = (events: readonly string[], type: string): boolean =>
  type !== 'usage.recorded' && (events.includes('*') || events.includes(type))
