/**
 * The ports a chat turn works through: the session it runs on (implemented by the session
 * object's storage, `SessionStorage`; the turn never sees SQL) and what one turn runs with.
 */
import type { Compactor, PassSession } from '../compaction'
import type { Policy } from '../contract/schemas'
import type { CompactionBlock, StepRecord } from '../contract/turn-result'
import type {
  Calibration,
  MessageEvent,
  NewMessageEvent,
  Reasoning,
  RecallHit,
  RewindPoint,
  RewindReason,
  SessionEvent,
  SessionInfo,
  TokenEstimator,
  ToolCall,
} from '../core'
import type { MemoryAnswer } from '../memory'
import type { ModelSettings } from '../models/config'
import type { TurnLimiter } from '../rate-limits'
import type { StepLog } from '../store/log/step-log'

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
  /**
   * Whether the view shows something only recall brings back — a cleared tool result, or steps of
   * its newest turn behind a summary — so that `recall_history` is offered whatever the request says.
   */
  recallNeeded?: boolean
}

/** The session a chat turn runs on: the compaction core's storage port plus what a turn reads and writes. */
export interface TurnSession extends PassSession {
  /** Who the session is, for a summarizer: call it only once the session exists. */
  info(): SessionInfo
  /** The session's state for a prompt; null while the session does not exist. */
  promptState(): Promise<PromptState | null>
  /** The session's record of written turn steps, for retries; null while the session does not exist. */
  stepLog(): Promise<StepLog | null>
  /** The events of the view's newest turn, in log order (none while the session does not exist). */
  newestTurn(): Promise<readonly MessageEvent[]>
  /** The covered events matching a plain-text query, best first (what `recall_history` answers). */
  recall(query: string, limit: number): Promise<RecallHit[]>
  /** A message by its id, or a tool call's result by the call's id, whole (cleared, covered or in view; never abandoned). */
  recallById(id: string): Promise<RecallHit | null>
  /**
   * Takes the view back to a point for this request: it reads as the view as of the point, and
   * its first write begins with the REWIND (`id`, when given). Null when the view would not
   * change; a point that is no message of the conversation is a 400 naming `field`.
   */
  rewindFirst(point: RewindPoint, reason: RewindReason, field: string, id?: string): { abandoned: number } | null
  /** Which of these tool call ids the log already holds (by any call or response, covered or not). */
  usedToolIds(ids: readonly string[]): Set<string>
  /** A blob's bytes for a prompt (the request's own, or the session's); null when neither holds it. */
  blobData(ref: string): Uint8Array | null
  /** Appends a turn step's events in one transaction with its record for retries, creating the session if needed. */
  writeTurn(events: NewMessageEvent[], step: StepRecord & { calibration: Calibration }): Promise<SessionEvent[]>
  /** Appends a history a client seeds the session with, ahead of its first turn, creating the session if needed. */
  writeHistory(events: NewMessageEvent[]): Promise<SessionEvent[]>
  /** The secret the session's compaction capsules are signed with (made now if `make` and there is none); null while there is none. */
  capsuleKey(make: boolean): string | null
  /** Where an event of the log stands (null: the log holds none with this id). */
  seqOf(id: string): number | null
  /** Records how a background pass ended (null: without a failure), for `/context`. */
  noteBackgroundPass(failure: { code: string; message: string } | null): void
}

/** Where a turn's policy pass may run after its answer: the session object's one background pass. */
export interface PassScheduler {
  /** Whether this policy's pass runs after the answer (the policy's `background`, else the deployment's default for the request). */
  inBackground(policy: Policy): boolean
  /** Starts a pass unless one runs already; whether it started. */
  start(pass: () => Promise<void>): boolean
  /** Whether a pass runs now. */
  running(): boolean
  /** Waits for the running pass, if any. */
  settled(): Promise<void>
  /**
   * Starts a preparation of the policy's summary (round4 §6), apart from the passes; when one runs
   * already, once it has ended (only the newest asked for waits).
   */
  prepare(work: () => Promise<void>): void
}

/** What one turn runs with. */
export interface TurnDeps {
  /** The prompt cache key a model call is sent under when its request names none (PROMPT_CACHE_KEY=session: one per session). */
  promptCacheKey?: string
  session: TurnSession
  models: ModelSettings
  compactor: Compactor
  estimator: TokenEstimator
  /** The deployment's COMPACTION_POLICY text. */
  deploymentPolicy: string | undefined
  /** Passes each piece of the reply on as it comes (streamed turns only). */
  onDelta?: (text: string) => void
  /** Passes each client tool call of the reply on once it is whole, with its stored id (streamed turns only). */
  onToolCall?: (call: ToolCall) => void
  /** Passes each reasoning block of the reply on once it is whole (streamed turns only). */
  onReasoning?: (block: Reasoning) => void
  /** Told what a door's rewind abandons, before the model is called (a response header says it). */
  onRewound?: (abandoned: number) => void
  /** Told the reply's id when the model is first called, and whether the reply will be stored. */
  onReply?: (id: string, stored: boolean, turnId?: string) => void
  /** Whether someone follows the session live: a reply is then streamed from the upstream even when the request is not. */
  watched?: () => boolean
  /**
   * Seals the capsule a compaction block carries back to the client, naming the event the view then
   * stands at (a door's: see `doors/capsule`). Without it a compaction edit answers no capsule.
   */
  sealCompaction?: (eventId: string) => Promise<string>
  /** Passes a compaction block on before the reply's pieces, with the id of the message it opens (streamed turns only). */
  onCompaction?: (messageId: string, block: CompactionBlock) => void
  /** Told that the turn waits for the session's background pass to make room (streamed `/turns` turns only). */
  onCompacting?: () => void
  /** Called once the turn's events are written: the next turn on the session may start. */
  written: () => void
  /** The user's limits, when any are on. */
  limiter?: TurnLimiter
  /** The session's background pass (none: every pass runs in the turn). */
  passes?: PassScheduler
  /** What `recall_history` with `scope: "all_sessions"` answers: all of the user's sessions searched (see `GET /v1/search`). */
  recallAcross?: (query: string, limit: number) => Promise<RecallHit[]>
  /**
   * The user's memory store, for the memory tool: runs one command, its arguments as the model
   * wrote them (JSON), answered as the SDK's handler answers it. Called only when a request
   * offers the tool and the model calls it: a turn without it never reads the user's memory.
   */
  memory?: (args: string) => Promise<MemoryAnswer>
}
