import { anthropicToolId } from '../contract/anthropic-tool-id'
import type { ClientMessage, ShownOptions } from '../core'
import type { StepRequest } from '../turns/step'
import type { OnDiverge } from './on-diverge'

/** How a door request meets the session. */
export type DoorMode =
  /** A turn with the session's memory: the request reconciled with the lineage (see `planDoorTurn`). */
  | 'turn'
  /** Answered without reading or writing the session (a client's auxiliary request: see `passthroughTurn`). */
  | 'passthrough'

/**
 * A door's request as the session object takes it, whatever its wire format: what each wire
 * format's translator (`src/wire/<door>/request`) makes of its body and headers. Every field is
 * given: a translator says what each mode and option is, nothing is left to a default here.
 */
export interface DoorRequest {
  mode: DoorMode
  /** The conversation as the client sent it (its system prompt aside), in the neutral shape reconciliation matches. */
  messages: ClientMessage[]
  /** The request field each message came from, for errors naming it (`messages[3]`, `messages[2].content[1]`). */
  fields: string[]
  /** The field of a tool message that names the call it answers (`tool_call_id`, `tool_use_id`). */
  toolCallIdField: string
  /**
   * What the wire format shows of a log: inline system messages or not, tool ids as stored or as
   * `anthropic` ones (see `contract/anthropic-tool-id`). What the request is matched against.
   */
  shown: { inline: boolean; toolIds?: 'anthropic' }
  /** The model call's settings; `system` is the request's system prompt. */
  request: StepRequest
  /** The session must exist (a Responses `conversation`: 404 otherwise, nothing created), or what it is created with when absent. */
  session: { mustExist: true } | { mustExist: false; creates: DoorSessionInput }
  /** A history that left the session's: taken as a rewind to where it branched off, or refused with a 409. */
  onDiverge: OnDiverge
  /** A request that repeats an answered one regenerates its reply instead of answering the stored one. */
  regenerate: boolean
  /** The client says it sends this request again (a retry count ≥ 1): a conversation's first, repeated, is a retry (see `reconcile`). */
  retried: boolean
  /**
   * A request that shares no message with the lineage and whose system prompt is not the
   * session's is a side conversation, answered unstored (the Messages door: Claude Code's titles
   * and classifiers).
   */
  sideConversations: boolean
  /** The `Idempotency-Key` header, with the SHA-256 of the request's messages as JSON (null: none sent). */
  idempotency: { key: string; hash: string } | null
  /**
   * The request goes on from this event (a Responses `previous_response_id`'s reply): the view is
   * taken back to it when the lineage has moved on (a branch), and all the request sends is new.
   */
  after: { replyId: string; responseId: string } | null
  /**
   * The request's compaction capsule (a Responses `compaction` item's `encrypted_content`, see
   * `./capsule`): what came before it in the request stands for the view it names, and the
   * request's messages (those after it) are matched against what the lineage holds after that.
   * `field` names it in a 400.
   */
  capsule: { token: string; field: string } | null
}

/**
 * What the session is created with, when a door request creates it: metadata (a subagent's names
 * its parent), an idle expiry (a Responses request's implicit session).
 */
export interface DoorSessionInput {
  metadata?: Record<string, unknown>
  idleTtlSeconds?: number
}

/** What the session is created with when this request creates it (nothing for one that must exist). */
export const createsOf = (request: DoorRequest): DoorSessionInput | undefined =>
  request.session.mustExist ? undefined : request.session.creates

/** What a door shows of a log, as matching takes it (the data of {@link DoorRequest.shown} as functions). */
export const shownOf = (request: Pick<DoorRequest, 'shown'>): ShownOptions => ({
  inline: request.shown.inline,
  ...(request.shown.toolIds === 'anthropic' ? { toolId: anthropicToolId } : {}),
})
