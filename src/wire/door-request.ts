import type { DoorMode, DoorRequest, DoorSessionInput, OnDiverge } from '../doors'
import { onDivergeOf } from '../doors'

/** What a wire format's translator makes of a body: the conversation, how it is shown, the model call's settings. */
export type Translation = Pick<DoorRequest, 'messages' | 'fields' | 'toolCallIdField' | 'shown' | 'request'>

/** The headers every door reads alike (each route declares them: `http/routes/helpers`' `DoorHeaders`). */
export interface DoorHeaderValues {
  'x-on-diverge'?: OnDiverge | undefined
  'x-regenerate'?: 'true' | 'false' | undefined
  'idempotency-key'?: string | undefined
  'x-stainless-retry-count'?: string | undefined
  'x-session-id'?: string | undefined
  'x-claude-code-session-id'?: string | undefined
  'x-codex-turn-metadata'?: string | undefined
  'x-recall'?: 'on' | 'off' | 'all' | undefined
}

/**
 * Whether a door request counts as sent again when it is the whole conversation before the
 * stored reply (rule 4): the SDKs say so with `x-stainless-retry-count` of 1 or more. Claude Code
 * (`x-claude-code-session-id`) and Codex (`x-codex-turn-metadata`) send their whole history every
 * time and retry with no count (Claude Code's own retries say 0): in a session of their own
 * conversation (no `X-Session-Id` naming another) such a request can only be the same request
 * again — where several runs share a session, a new run may ask what an earlier one did.
 */
export const isResent = (headers: DoorHeaderValues) =>
  Number.parseInt(headers['x-stainless-retry-count'] ?? '', 10) >= 1 ||
  (headers['x-session-id'] === undefined &&
    (headers['x-claude-code-session-id'] !== undefined || headers['x-codex-turn-metadata'] !== undefined))

/** The SHA-256 of a text, as hex. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** How a door's request meets its session: what each door says of its own (the rest is read from the headers). */
export interface DoorOptions {
  mode?: DoorMode
  /** The session must exist (default: created when absent, with `creates`). */
  mustExist?: boolean
  creates?: DoorSessionInput
  sideConversations?: boolean
  after?: DoorRequest['after']
  capsule?: DoorRequest['capsule']
}

/** `X-Recall`: the built-in recall_history tool offered (`on`), over all of the user's sessions with `all`; else as the body says. */
export const recallOfHeader = (value: DoorHeaderValues['x-recall']): Translation['request']['recall'] =>
  value === 'on' ? true : value === 'all' ? { sessions: 'all' } : undefined

/**
 * A door request: a wire format's translation of a body, the headers every door reads alike
 * (`X-On-Diverge`, else the deployment's ON_DIVERGE; `X-Regenerate`; a resend; an
 * `Idempotency-Key`, hashed with `hashed`, the request's messages as sent; `X-Recall`), and the
 * door's own modes, each said once here.
 *
 * @example
 * const request = await doorRequestOf(chatCompletionTranslation(body), body.messages, headers, c.env)
 */
export async function doorRequestOf(
  translation: Translation,
  hashed: unknown,
  headers: DoorHeaderValues,
  env: Pick<Env, 'ON_DIVERGE'>,
  options: DoorOptions = {},
): Promise<DoorRequest> {
  const key = headers['idempotency-key']
  const recall = recallOfHeader(headers['x-recall'])
  if (recall !== undefined) translation.request.recall = recall
  return {
    ...translation,
    mode: options.mode ?? 'turn',
    session: options.mustExist ? { mustExist: true } : { mustExist: false, creates: options.creates ?? {} },
    onDiverge: headers['x-on-diverge'] ?? onDivergeOf(env.ON_DIVERGE),
    regenerate: headers['x-regenerate'] === 'true',
    retried: isResent(headers),
    sideConversations: options.sideConversations ?? false,
    idempotency: key === undefined ? null : { key, hash: await sha256(JSON.stringify(hashed)) },
    after: options.after ?? null,
    capsule: options.capsule ?? null,
  }
}
