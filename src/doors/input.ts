import { anthropicToolId } from '../contract/anthropic-tool-id'
import type { ClientMessage, ShownOptions } from '../core'
import type { StepRequest } from '../turns/step'
import type { OnDiverge } from './on-diverge'

/**
 * A door's request as the session object takes it, whatever its wire format: what each wire
 * format's `request` function makes of its body (see `./chat-completions/request`,
 * `./messages/request`).
 */
export interface DoorInput {
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
  /** The `Idempotency-Key` header, with the SHA-256 of the request's messages as JSON. */
  idempotency?: { key: string; hash: string }
  /** A history that left the session's: taken as a rewind to where it branched off (default), or refused with a 409. */
  onDiverge?: OnDiverge
  /** A request that repeats an answered one regenerates its reply instead of answering the stored one. */
  regenerate?: boolean
  /** The client says it sends this request again (`x-stainless-retry-count` ≥ 1): a conversation's first, repeated, is a retry (see `reconcile`). */
  retried?: boolean
  /**
   * The request goes on from this event (a Responses `previous_response_id`'s reply): the view is
   * taken back to it when the lineage has moved on (a branch), and all the request sends is new.
   */
  after?: { replyId: string; responseId: string }
  /**
   * The request's compaction capsule (a Responses `compaction` item's `encrypted_content`, see
   * `./capsule`): what came before it in the request stands for the view it names, and the
   * request's messages (those after it) are matched against what the lineage holds after that.
   * `field` names it in a 400.
   */
  capsule?: { token: string; field: string }
  /** Store what is new without calling the model (a compaction request stores its input first). */
  storeOnly?: boolean
  /** The session must exist (a Responses `conversation`): 404 otherwise, nothing created. */
  mustExist?: boolean
  /** Answered without reading or writing the session (a client's auxiliary request: see `passthroughTurn`). */
  passthrough?: boolean
  /**
   * A request that shares no message with the lineage and whose system prompt is not the
   * session's is a side conversation, answered unstored (the Messages door: Claude Code's titles
   * and classifiers).
   */
  sideConversations?: boolean
  /**
   * What the session is created with, when this request creates it: metadata (a subagent's names
   * its parent), an idle expiry (a Responses request's implicit session).
   */
  creates?: { metadata?: Record<string, unknown>; idleTtlSeconds?: number }
}

/** What a door shows of a log, as matching takes it (the data of {@link DoorInput.shown} as functions). */
export const shownOf = (input: DoorInput): ShownOptions => ({
  inline: input.shown.inline,
  ...(input.shown.toolIds === 'anthropic' ? { toolId: anthropicToolId } : {}),
})

/** The SHA-256 of a text, as hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** An `Idempotency-Key` with the hash of the messages it was sent with (none without a key). */
export async function idempotencyOf(key: string | undefined, messages: unknown): Promise<Pick<DoorInput, 'idempotency'>> {
  return key === undefined ? {} : { idempotency: { key, hash: await sha256(JSON.stringify(messages)) } }
}
