import type { ErrorBody } from '../contract/errors'
import type { Policy } from '../contract/schemas'
import {
  type Calibration,
  type ClientMessage,
  type CompactionResult,
  type MessageEvent,
  type NewMessageEvent,
  RECALL_TOOL,
  type SessionEvent,
  type SessionInfo,
  type SessionStore,
  type ToolCall,
} from '../core'
import type { Usage } from '../models/port'
import type { RecallHit } from './recall'

/** What happened to fit the prompt into the model's context budget. */
export interface ContextReport<L = unknown> {
  promptTokens: number
  budget: number
  /** Passes run before the model call (they stay written even if the call then failed). */
  compactions: CompactionResult<L>[]
  /** Whether the upstream refused the prompt as too long and the turn was retried once. */
  retried: boolean
  /** The session's calibration after this turn's chat call (what fit checks scale estimates by). */
  calibration: Calibration
}

/** Whether the turn is done, or waits for the results of the tool calls its reply made. */
export type TurnStatus = 'completed' | 'requires_action'

/** A reply's calls for the client (the service's own `recall_history` is never among them), and the status they make. */
export function clientCallsOf(reply: MessageEvent): { status: TurnStatus; toolCalls: ToolCall[] } {
  const toolCalls = (reply.message.toolCalls ?? []).filter((call) => call.name !== RECALL_TOOL)
  return { status: toolCalls.length > 0 ? 'requires_action' : 'completed', toolCalls }
}

/** What a turn did; its compaction results list events as the session's store does (`L`). */
export interface TurnResult<L = unknown> {
  reply: MessageEvent
  status: TurnStatus
  /** The reply's tool calls for the client; `[]` when completed. */
  toolCalls: ToolCall[]
  events: SessionEvent[]
  compaction: CompactionResult<L> | null | { error: ErrorBody }
  usage: Usage | null
  context: ContextReport<L> | null
  /** As the upstream reported it (the front door's finish_reason); absent for a stored result. */
  finishReason?: string | null
}

/** A message of the log as the client was shown it, with the seq of the event it comes from. */
export interface ShownMessage {
  message: ClientMessage
  seq: number
}

/** What a session recorded of the turn steps written to it: what retries are answered from. */
export interface TurnRecords<L = unknown> {
  /** The completed turn whose user event has this id; 'conflict' when the id is in the log as something else. */
  completedTurn(id: string, content: string): TurnResult<L> | 'conflict' | null
  /** The stored result of the step the event of this id opened (a continuation's tool event); null when none was. */
  storedStep(id: string): TurnResult<L> | null
  /** The result of the step whose reply is the event of this seq (a reply appended through /events: that reply alone). */
  storedReply(seq: number): TurnResult<L>
  /** The step an `Idempotency-Key` was recorded with: the request's hash, and its stored result. */
  idempotent(key: string): { hash: string; result: TurnResult<L> } | null
  /**
   * The end of the log as the client was shown it (see the core's `clientMessagesOf`), oldest
   * first: its trailing assistant messages and the `count` messages before them, read backwards;
   * `empty` when the session holds no such message at all.
   */
  clientTail(count: number): { messages: ShownMessage[]; empty: boolean }
}

/** The result of a step stored before, answered to a retry: its events and reply as the log has them. */
export const storedResult = <L>(reply: MessageEvent, events: SessionEvent[], usage: Usage | null): TurnResult<L> => ({
  reply,
  ...clientCallsOf(reply),
  events,
  compaction: null,
  usage,
  context: null,
})

/** What a turn needs to know of its session before it builds the prompt: counters, not bodies. */
export interface PromptState {
  /** The session's own policy, if it has one. */
  policy: Policy | null
  /** The view's tokens (its latest system message and every non-system event). */
  viewTokens: number
  /** What the model counts ÷ what we estimate, as the session has learned it. */
  calibration: Calibration
  /** The latest system message of the view. */
  latestSystem: { tokens: number; content: string } | null
}

/**
 * The session a chat turn runs on: the compaction core's storage port plus what a turn reads and
 * writes. The session object's storage implements it (`StoredSession`); the turn never sees SQL.
 */
export interface TurnSession<L = unknown> extends SessionStore<L> {
  /** Who the session is, for a summarizer: call it only once the session exists. */
  info(): SessionInfo
  /** The session's state for a prompt; null while the session does not exist. */
  promptState(): Promise<PromptState | null>
  /** The session's record of written turn steps, for retries; null while the session does not exist. */
  records(): Promise<TurnRecords<L> | null>
  /** The events of the view's newest turn, in log order (none while the session does not exist). */
  newestTurn(): Promise<MessageEvent[]>
  /** The covered events matching a plain-text query, best first (what `recall_history` answers). */
  recall(query: string, limit: number): Promise<RecallHit[]>
  /** Which of these tool call ids the log already holds (by any call or response, covered or not). */
  usedToolIds(ids: readonly string[]): Set<string>
  /**
   * Appends a turn step's events in one transaction with its record for retries (keyed by the
   * event of `keyId`; `firstSeq`: where the request's events start, if it wrote some before),
   * creating the session if needed.
   */
  writeTurn(
    events: NewMessageEvent[],
    step: {
      keyId: string
      /** The reply's id, when events follow it (recall results). */
      replyId?: string
      firstSeq?: number
      usage: Usage | null
      idempotency?: { key: string; hash: string }
      /** The session's calibration after this step's chat call (stored with it). */
      calibration: Calibration
    },
  ): Promise<SessionEvent[]>
  /** Appends a history a client seeds the session with, ahead of its first turn, creating the session if needed. */
  writeHistory(events: NewMessageEvent[]): Promise<SessionEvent[]>
  /** The turn's result as JSON text, generated piece by piece (its compactions may list a whole view). */
  resultJson(result: TurnResult<L>): Iterable<string>
}
