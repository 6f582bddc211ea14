/**
 * What a session tells the world of what happened to it: one notice per turn, pass, rewind, fork,
 * failure or ending, written with the change that caused it (a transactional outbox) and passed
 * to its user's index object, which counts its usage and delivers it to the user's webhooks.
 */
import { newNoticeId } from '../contract/ids'
import type { WebhookEventType } from '../contract/schemas/webhooks'
import { clientCallsOf, type StepRecord, type Usage } from '../contract/turn-result'
import type { MessageEvent, NewEvent, SessionEvent, UsageEntry } from '../core'

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

/** Whether an endpoint subscribed to `events` is sent a notice of `type`. */
export const subscribes = (events: readonly string[], type: string): boolean =>
  type !== 'usage.recorded' && (events.includes('*') || events.includes(type))

/** A notice of `type` about the session `sessionId`, happening now. */
export function newNotice(
  type: Notice['type'],
  sessionId: string,
  data: Record<string, unknown> = {},
  usage?: UsageEntry,
): Notice {
  return {
    id: newNoticeId(),
    type,
    timestamp: new Date().toISOString(),
    data: { sessionId, ...data },
    ...(usage ? { usage } : {}),
  }
}

/** One model call's (or a request's calls') usage as counted: a turn's, or a summary's (all its tokens summary tokens). */
export function usageEntry(model: string, usage: Usage | null, kind: 'turn' | 'summary'): UsageEntry {
  const summary = kind === 'summary'
  return {
    model,
    turns: summary ? 0 : 1,
    promptTokens: summary ? 0 : (usage?.promptTokens ?? 0),
    cachedPromptTokens: summary ? 0 : (usage?.cachedPromptTokens ?? 0),
    completionTokens: summary ? 0 : (usage?.completionTokens ?? 0),
    summaryTokens: summary ? (usage?.totalTokens ?? 0) : 0,
  }
}

/** What a written boundary tells: a pass (`session.compacted`) or a rewind (`session.rewound`). */
export function boundaryNotices(sessionId: string, written: readonly SessionEvent[]): Notice[] {
  return written.flatMap((event) => {
    if (event.type === 'COMPACTION')
      return [
        newNotice('session.compacted', sessionId, {
          eventId: event.id,
          seq: event.seq,
          covered: event.boundary.coveredEventCount,
        }),
      ]
    if (event.type === 'REWIND')
      return [
        newNotice('session.rewound', sessionId, {
          eventId: event.id,
          seq: event.seq,
          reason: event.rewind.reason,
          abandoned: event.boundary.coveredEventCount,
        }),
      ]
    return []
  })
}

/** What a written turn step tells: done, or waiting on the client's tools; with what its calls spent. */
export function turnNotice(sessionId: string, written: readonly NewEvent[], step: StepRecord): Notice {
  const reply = (written.find((event) => event.id === step.replyId) ??
    written.findLast((event) => event.type === 'MESSAGE' && event.message.role === 'assistant')) as MessageEvent
  const { status, toolCalls } = clientCallsOf(reply)
  const model = typeof reply.metadata.model === 'string' ? reply.metadata.model : 'unknown'
  return newNotice(
    status === 'completed' ? 'turn.completed' : 'turn.requires_action',
    sessionId,
    {
      turnId: step.keyId,
      replyId: reply.id,
      ...(toolCalls.length > 0 ? { toolCallIds: toolCalls.map((call) => call.id) } : {}),
      usage: step.usage,
    },
    usageEntry(model, step.usage, 'turn'),
  )
}
