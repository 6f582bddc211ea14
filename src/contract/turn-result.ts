/**
 * What a turn answers, as the layers pass it up to the wire's TurnResponse: storage builds the
 * stored steps a retry is answered from, turns build fresh results, the session object writes
 * either as JSON. Declared here, below both, so that neither imports the other.
 */
import type { z } from '@hono/zod-openapi'
import {
  type Calibration,
  type CompactionResult,
  isServiceCall,
  type MessageEvent,
  type SessionEvent,
  type ToolCall,
} from '../core'
import type { ErrorBody } from './errors'
import type { UsageSchema } from './schemas'

/** Tokens as the upstream reported them for one call (or a request's calls summed). */
export type Usage = NonNullable<z.output<typeof UsageSchema>>

/** What happened to fit the prompt into the model's context budget (a TurnResponse's `context`). */
export interface PromptFitReport {
  promptTokens: number
  budget: number
  /** Passes run before the model call (they stay written even if the call then failed). */
  compactions: CompactionResult[]
  /** Whether the upstream refused the prompt as too long and the turn was retried once. */
  retried: boolean
  /** The session's calibration after this turn's chat call (what fit checks scale estimates by). */
  calibration: Calibration
}

/** Whether the turn is done, or waits for the results of the tool calls its reply made. */
export type TurnStatus = 'completed' | 'requires_action'

/** A reply's calls for the client (the service's own — `recall_history`, its memory calls — never among them), and the status they make. */
export function clientCallsOf(reply: MessageEvent): { status: TurnStatus; toolCalls: ToolCall[] } {
  const toolCalls = (reply.message.toolCalls ?? []).filter((call) => !isServiceCall(call))
  return { status: toolCalls.length > 0 ? 'requires_action' : 'completed', toolCalls }
}

/** What a turn did (its compaction results name events by seq: the answer is written from storage). */
export interface TurnResult {
  reply: MessageEvent
  status: TurnStatus
  /** The reply's tool calls for the client; `[]` when completed. */
  toolCalls: ToolCall[]
  events: SessionEvent[]
  compaction: CompactionResult | null | { error: ErrorBody }
  /** The policy's pass was started to run after the answer (`compaction` is then null). */
  compactionScheduled?: boolean
  usage: Usage | null
  context: PromptFitReport | null
  /** As the upstream reported it (the chat-completions door's finish_reason); absent for a stored result. */
  finishReason?: string | null
  /** The stop sequence the reply stopped at, when the upstream said (the Messages door's `stop_sequence`); absent for a stored result. */
  stopSequence?: string
}

/** A turn step as the log holds it: its reply, every event the request wrote, the usage recorded with it. */
export interface StoredStep {
  reply: MessageEvent
  events: SessionEvent[]
  usage: Usage | null
}

/** The result of a step stored before, answered to a retry: its events and reply as the log has them. */
export const storedResult = ({ reply, events, usage }: StoredStep): TurnResult => ({
  reply,
  ...clientCallsOf(reply),
  events,
  compaction: null,
  usage,
  context: null,
})

/** How a written step of a turn is recorded: by the event that opened it, with what the request wrote before. */
export interface StepRecord {
  /** The id of the event a retry names the step by: a content turn's user event, a continuation's tool event. */
  keyId: string
  /** The reply's id, when events follow it (recall results); the last event otherwise. */
  replyId?: string
  /** The seq of the request's first event, when it wrote some before (interrupted results). */
  firstSeq?: number
  usage: Usage | null
  /** The request's `Idempotency-Key`, with the hash of its messages. */
  idempotency?: { key: string; hash: string }
}
