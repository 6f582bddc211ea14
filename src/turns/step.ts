/** The data a turn step carries from phase to phase: what opens it, what it asks for, what was prepared. */
import type { ChatOptions, Policy, TurnInput } from '../contract/schemas'
import type { Calibration, ModelFit, NewMessageEvent, SessionEvent, Trigger } from '../core'
import type { AnthropicExtras, ChatModel } from '../models/port'

/** What a step adds to the log with its reply, opened by `/turns` or by a door. */
export interface StepInput {
  /** The events the prompt ends with (a user message, a continuation's tool event, a client's new messages), in order. */
  added: NewMessageEvent[]
  /** The request field each added event came from, for a 413 naming it. */
  fields: string[]
  /** A new user message: calls left pending are closed as interrupted first. */
  closesPending: boolean
  /** An `Idempotency-Key` to record with the step. */
  idempotency?: { key: string; hash: string }
  /** How many of `added` are a seeded history: appended ahead of the step when the prompt would not fit with it. */
  history?: number
  /** The event the step is recorded under when it adds none (a regenerate's REWIND); else the first added. */
  keyId?: string
}

/** The settings of a step's model call: a turn request without what opens the step. */
export type StepRequest = Omit<TurnInput, 'id' | 'content' | 'toolResults' | 'rewind' | 'regenerate'> & {
  /**
   * The reply's room in the fit check is at most half the model's context window, whatever
   * `maxTokens` is sent (Anthropic clients ask for far more room than they use: 32k, 128k).
   */
  replyRoomAtMostHalf?: boolean
  /** When this request's pass runs, with the policy's strategy otherwise (a Responses `compact_threshold`). */
  compactionTrigger?: Trigger
  /** What only an Anthropic upstream is given (a Messages client's other fields, its `anthropic-beta`). */
  anthropic?: AnthropicExtras
}

/** A step ready for its model call: what it sends and how its prompt is fitted, decided before the first call. */
export interface PreparedStep {
  model: ChatModel
  /** The model the request names (else CHAT_MODEL): its context decides the budget. */
  modelName: string
  /** `max_tokens` for the reply: the request's, else CHAT_MAX_TOKENS. */
  replyTokens: number
  /** Sampling options other than `maxTokens`. */
  options: Omit<ChatOptions, 'maxTokens'>
  /** The prompt budget and the session's ratio at the start of the step. */
  fit: ModelFit
  /** The session's calibration at the start of the step. */
  calibration: Calibration
  /** The turn's policy; null: compaction is off for this turn. */
  policy: Policy | null
  /** The request's system message when it differs from the latest stored one (written with the step). */
  systemEvent: NewMessageEvent | null
  /** The tools' JSON, estimated: it is sent with the prompt. */
  toolsTokens: number
  /** `recall_history`'s definition, estimated: sent with the prompt when recall is on or the view needs it. */
  recallTokens: number
  /** Whether the request turned recall on. */
  recallRequested: boolean
  /** Room a pass keeps in its token budget for the summary it writes (SUMMARY_MAX_TOKENS). */
  summaryReserve: number
  /** What the request wrote before the step itself: calls closed as interrupted, a seeded history. */
  earlier: SessionEvent[]
  /** The events the prompt ends with. */
  added: NewMessageEvent[]
  /** The id the step's record is kept under when it adds no event (a regenerate's REWIND); else its first added event's. */
  keyId?: string
  /** The id the reply will be stored with: known before the model is called, so a streamed answer can name it. */
  replyId: string
}

/** The tokens of some events, as estimated when each was made. */
export const tokensOf = (events: readonly NewMessageEvent[]): number => events.reduce((sum, event) => sum + event.tokens, 0)
