import { ServiceError, sessionNotFound } from '../contract/errors'
import type { StoredStep } from '../contract/turn-result'
import { asksTurn, type ClientMessage, reconcile, type ShownMessage } from '../core'
import type { DoorRequest } from './request'

/** What a door request is for: an answer (a turn), or only storing what is new (a compaction request's first step). */
export type DoorPurpose = 'answer' | 'store'

/** What the session holds that decides a door request's plan: read before planning (see `doorTurn`). */
export interface DoorFacts {
  /** Whether the session exists. */
  exists: boolean
  /** The step recorded with the request's `Idempotency-Key`, with the hash of the messages it came with (null: none). */
  idempotent: { hash: string; step: StoredStep } | null
  /** Whether the request is a side conversation's, by its system prompt (see `DoorRequest.sideConversations`). */
  side: boolean
  /** The lineage's client messages the request is matched against: {@link tailLength} of them (after the capsule's point, when it has one). */
  tail: { messages: ShownMessage[]; empty: boolean }
  /** The seq of the point the request's compaction capsule names (undefined: none). */
  capsuleAt: number | undefined
}

/** What a door request comes to. */
export type DoorPlan =
  /** A request answered before: its stored step (an `Idempotency-Key` seen again). */
  | { kind: 'stored'; step: StoredStep }
  /** A retry of the newest turn: the reply stored at this seq. */
  | { kind: 'stored_reply'; seq: number }
  /** A retry asked to regenerate: a new reply to the same question. */
  | { kind: 'regenerate' }
  /** A request that goes on from an earlier reply (`previous_response_id`). */
  | { kind: 'continued'; after: NonNullable<DoorRequest['after']> }
  /** A history that left the session's: a rewind to where it branches off, then what follows is new. */
  | { kind: 'diverged' }
  /** Nothing new after a compaction capsule: the session's newest turn says what the request asks. */
  | { kind: 'go_on' }
  /** Only storing, and nothing is new. */
  | { kind: 'nothing' }
  /**
   * New messages, written with the reply as one step (`seeding`: stored as sent, replies and all).
   * `unlessSide`: a side conversation's request that shares nothing with the lineage is answered
   * unstored instead (decided on the lineage's longer tail: see `BRANCH_LOOKBACK`).
   */
  | { kind: 'new'; messages: ClientMessage[]; seeding: boolean; unlessSide: boolean }

/** Whether the client resends this request (a side conversation's resend is never a retry of the session's turn). */
const resentOf = (request: DoorRequest, facts: Pick<DoorFacts, 'side'>) => request.retried && !facts.side

/**
 * How many of the lineage's client messages a request is matched against: as many as it sends,
 * and one more when it is resent (a conversation's first message repeated is a retry only when
 * the conversation holds no more than the request).
 */
export const tailLength = (request: DoorRequest, facts: Pick<DoorFacts, 'side'>): number =>
  request.messages.length + (resentOf(request, facts) ? 1 : 0)

/**
 * A door request's plan, from the request and what the session holds: an `Idempotency-Key` seen
 * before answers its first result (another request under it is a 409); a request that goes on
 * from a reply is `continued`; else its messages are reconciled with the lineage's (see the
 * core's `reconcile`; after a compaction capsule, with what follows the point it names) — a retry
 * answers the stored reply (or, asked to regenerate, a new one), a history that left the
 * session's rewinds to where it branched off (or is refused, as `onDiverge` says), nothing new
 * after a capsule goes on, else what is new is written with the reply. Pure: the reads are
 * {@link DoorFacts}.
 *
 * @example
 * planDoorTurn(request, { exists: true, idempotent: null, side: false, tail, capsuleAt: undefined }, 'answer')
 * // { kind: 'new', messages: [{ role: 'user', content: 'And tomorrow?' }], seeding: false, unlessSide: false }
 */
export function planDoorTurn(request: DoorRequest, facts: DoorFacts, purpose: DoorPurpose): DoorPlan {
  if (request.session.mustExist && !facts.exists) throw sessionNotFound()
  if (request.idempotency && facts.idempotent) {
    if (facts.idempotent.hash !== request.idempotency.hash)
      throw new ServiceError('id_conflict', `Idempotency-Key "${request.idempotency.key}" was sent before with other messages`)
    return { kind: 'stored', step: facts.idempotent.step }
  }
  if (request.after !== null) return { kind: 'continued', after: request.after }
  const { tail, capsuleAt } = facts
  const lineage = tail.messages.map((shown) => shown.message)
  const reconciled = reconcile(request.messages, lineage, {
    logIsEmpty: tail.empty && capsuleAt === undefined,
    // Nothing new is no error after a capsule, when only storing, or when the lineage ends with a
    // question no reply follows (a paused compaction's): the newest turn says what it asks.
    continues: capsuleAt !== undefined || purpose === 'store' || asksTurn(lineage),
    retried: resentOf(request, facts),
  })
  if (reconciled.kind === 'refused') {
    if (reconciled.code === 'history_diverged' && request.onDiverge === 'rewind') return { kind: 'diverged' }
    throw new ServiceError(reconciled.code, `${request.fields[reconciled.at]}: ${reconciled.reason}`)
  }
  if (purpose === 'store' && reconciled.kind !== 'new') return { kind: 'nothing' }
  if (reconciled.kind === 'nothing_new') return { kind: 'go_on' }
  if (reconciled.kind === 'retry')
    return request.regenerate ? { kind: 'regenerate' } : { kind: 'stored_reply', seq: tail.messages.at(-1)!.seq }
  // Nothing of the request is known: a side conversation, when it shares nothing with the lineage.
  const unlessSide = reconciled.messages.length === request.messages.length && !tail.empty && facts.side
  return { kind: 'new', messages: reconciled.messages, seeding: reconciled.seeding, unlessSide }
}
