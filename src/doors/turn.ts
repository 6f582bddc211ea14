import { ServiceError } from '../contract/errors'
import { type StoredStep, storedResult, type TurnResult } from '../contract/turn-result'
import { asksTurn, branchPoint, messageKey, type RewindPoint, RewindPointError } from '../core'
import { regenerate, runStep } from '../turns/run-turn'
import type { TurnDeps } from '../turns/session'
import { type DoorAnswer, doorAnswer } from './answer'
import { capsulePoint, sealCapsule } from './capsule'
import { newMessagesTurn } from './new-messages'
import { passthroughTurn } from './passthrough'
import { type DoorFacts, type DoorPurpose, planDoorTurn, tailLength } from './plan'
import { type DoorRequest, shownOf } from './request'

/** How far back a diverged request's branch point is looked for, beyond the request's own length (messages). */
export const BRANCH_LOOKBACK = 10_000
/** Lineage messages beyond a diverged request's length looked at first (see `divergedTurn`). */
const NEAR_END = 16

/** An empty tail: what a request is matched against when the session holds nothing (or it goes on from a reply). */
const NO_TAIL = { messages: [], empty: true }

/**
 * One door request: answered without the session when the client says it is auxiliary (see
 * `passthroughTurn`), else with the session's memory, as its plan says (see `planDoorTurn`).
 *
 * @example
 * const answer = await doorTurn(request, deps, address.userId)
 */
export async function doorTurn(request: DoorRequest, deps: TurnDeps, userId: string): Promise<DoorAnswer> {
  if (request.mode === 'passthrough') return passthroughTurn(request, deps)
  // A compaction a request's edit runs is handed back with a capsule, as a Responses client's is.
  const sealCompaction = async (eventId: string) =>
    sealCapsule(deps.session.capsuleKey(true)!, { userId, sessionId: deps.session.info().id, eventId })
  const result = await runDoorPlan(request, { ...deps, sealCompaction }, 'answer')
  if (result === null) throw new Error('a door turn that stores only is not answered')
  return 'stored' in result ? result : doorAnswer(result)
}

/**
 * Stores what a door request holds that the session does not, by the rules of a turn, without
 * calling the model (what a Responses compaction request does first).
 */
export async function storeNewMessages(request: DoorRequest, deps: TurnDeps): Promise<void> {
  await runDoorPlan(request, deps, 'store')
}

/** What the session holds that decides a request's plan (see {@link DoorFacts}); each read only when the plan can use it. */
async function doorFacts(request: DoorRequest, deps: TurnDeps): Promise<DoorFacts> {
  const { session } = deps
  const state = await session.promptState()
  const steps = state ? await session.stepLog() : null
  const idempotent = request.idempotency && steps ? steps.idempotent(request.idempotency.key) : null
  // A capsule is checked whatever the request goes on from: a made-up one is never taken.
  const answered = idempotent !== null && request.idempotency !== null
  const capsuleAt = request.capsule && !answered ? await capsulePoint(request.capsule, session) : undefined
  const side = await isSideConversation(request, deps)
  const tail =
    steps && !answered && request.after === null
      ? steps.clientTail(tailLength(request, { side }), shownOf(request), capsuleAt)
      : NO_TAIL
  return { exists: state !== null, idempotent, side, tail, capsuleAt }
}

/**
 * A door request with the session's memory, run as its plan says (see `planDoorTurn`): a stored
 * answer, a continuation, a rewind to where a diverged history branched off, a retry, a side
 * conversation answered unstored, or what is new written with the reply as one turn step.
 * With `store`, what is new is written and nothing is answered (null).
 */
async function runDoorPlan(request: DoorRequest, deps: TurnDeps, purpose: DoorPurpose): Promise<TurnResult | DoorAnswer | null> {
  const facts = await doorFacts(request, deps)
  const plan = planDoorTurn(request, facts, purpose)
  const store = purpose === 'store'
  switch (plan.kind) {
    case 'stored':
      return storedResult(plan.step)
    case 'stored_reply':
      return storedResult((await deps.session.stepLog())!.storedReply(plan.seq))
    case 'regenerate':
      return regenerate(undefined, request.request, deps)
    case 'continued':
      return continuedTurn(request, plan.after, deps, store)
    case 'diverged':
      return divergedTurn(request, deps, facts.capsuleAt, store)
    case 'go_on':
      return goOnTurn(request, deps)
    case 'nothing':
      return null
    case 'new':
      if (plan.unlessSide) {
        const { j } = branchPoint(request.messages, lineageTail(request, (await deps.session.stepLog())!))
        if (j === 0) return passthroughTurn(request, deps)
      }
      return newMessagesTurn(request, plan.messages, plan.seeding, deps, store)
  }
}

/**
 * A request with nothing new after its compaction capsule, or that the lineage ends with a
 * question no reply follows (a paused compaction stored it): the session's newest turn says what
 * it asks — a question or tool results no reply follows are answered now (the model goes on, as
 * after a compaction in the middle of an agent's loop); a reply answers it again (a retry).
 */
async function goOnTurn(input: DoorRequest, deps: TurnDeps): Promise<TurnResult> {
  const last = (await deps.session.newestTurn()).at(-1)
  if (!last)
    throw new ServiceError('invalid_request', `${input.capsule?.field ?? 'messages'}: the session holds nothing to go on from`)
  if (last.message.role === 'assistant') return storedResult((await deps.session.stepLog())!.storedReply(last.seq))
  return runStep({ added: [], fields: [], closesPending: false }, input.request, deps)
}

/**
 * A request that goes on from an earlier reply (a Responses `previous_response_id`): a rewind to
 * as of that reply when the lineage went on past it (nothing when it is the tip), then what the
 * request sends is new. A reply the session does not hold is `previous_response_not_found`.
 */
async function continuedTurn(
  input: DoorRequest,
  after: NonNullable<DoorRequest['after']>,
  deps: TurnDeps,
  store: boolean,
): Promise<TurnResult | null> {
  if (!(await deps.session.promptState())) throw previousNotFound(after.responseId)
  const retried = await answeredAfter(input, after.replyId, deps)
  if (retried && !input.regenerate && !store) return storedResult(retried)
  let rewound: { abandoned: number } | null
  try {
    rewound = deps.session.rewindFirst({ to: after.replyId, position: 'at' }, 'divergence', 'previous_response_id')
  } catch (error) {
    if (error instanceof RewindPointError) throw previousNotFound(after.responseId)
    throw error
  }
  if (rewound) deps.onRewound?.(rewound.abandoned)
  return newMessagesTurn(
    input,
    input.messages,
    input.messages.some((message) => message.role === 'assistant'),
    deps,
    store,
  )
}

/**
 * The stored answer of a request that went on from this reply with these very messages: what the
 * lineage holds right after the reply, when that is the request's messages and a reply to them (a
 * client retrying after a lost answer, with the same `previous_response_id`). Null otherwise.
 */
async function answeredAfter(input: DoorRequest, replyId: string, deps: TurnDeps): Promise<StoredStep | null> {
  const replySeq = deps.session.seqOf(replyId)
  const steps = await deps.session.stepLog()
  if (replySeq === null || !steps || input.messages.length === 0) return null
  // One message more than the request holds is asked for: there must be none before its messages.
  const { messages: tail } = steps.clientTail(input.messages.length + 1, shownOf(input), replySeq)
  const asked = tail.slice(0, input.messages.length)
  const answer = tail.slice(input.messages.length)
  const same =
    asked.length === input.messages.length &&
    asked.every((shown, i) => messageKey(shown.message) === messageKey(input.messages[i]!))
  if (!same || answer.length === 0 || answer.some((shown) => shown.message.role !== 'assistant')) return null
  return steps.storedReply(answer.at(-1)!.seq)
}

const previousNotFound = (responseId: string) =>
  new ServiceError('previous_response_not_found', `previous_response_id: response "${responseId}" not found`)

/** The lineage's messages a diverged request's branch point is looked for in (see {@link BRANCH_LOOKBACK}). */
const lineageTail = (input: DoorRequest, steps: NonNullable<Awaited<ReturnType<TurnDeps['session']['stepLog']>>>) =>
  steps.clientTail(input.messages.length + BRANCH_LOOKBACK, shownOf(input)).messages.map((shown) => shown.message)

/**
 * Whether a request that shares no message with the session's lineage is a side conversation (a
 * client's title or classifier request on its session): on a door that has them, one whose
 * system prompt is not the session's.
 */
async function isSideConversation(input: DoorRequest, deps: TurnDeps): Promise<boolean> {
  const system = input.request.system
  if (!input.sideConversations || system === undefined) return false
  return system !== (await deps.session.promptState())?.latestSystem?.content
}

/**
 * A history that left the session's (an edit, a regenerate by resending, a client that rewrote
 * or compacted its own copy): the request means a rewind to where it branches off the lineage
 * (the core's `branchPoint`, looked for within {@link BRANCH_LOOKBACK} messages beyond the
 * request's length), then what follows that point is new. The REWIND (`divergence`) goes with
 * the turn's first write; a history that shares nothing starts a fresh lineage holding what it
 * sent (or, a side conversation, is answered unstored). After a compaction capsule (at seq
 * `after`) the lineage is looked at only past the point it names, and sharing nothing there
 * goes back to the capsule's view (the client's copy stands on it), even when a rewind left it.
 * `onRewound` is told what the rewind abandons.
 */
async function divergedTurn(
  input: DoorRequest,
  deps: TurnDeps,
  after: number | undefined,
  store: boolean,
): Promise<TurnResult | DoorAnswer | null> {
  const steps = (await deps.session.stepLog())!
  const lookBack = (count: number) => {
    const tail = steps.clientTail(count, shownOf(input), after)
    return {
      tail,
      ...branchPoint(
        input.messages,
        tail.messages.map((shown) => shown.message),
      ),
    }
  }
  // Most histories branch off near the end (an edit of the newest question, a regenerate): a
  // window of the request's length and a few more holds a match of all but its last message,
  // which only the whole request repeated could beat. Else the spec's whole lookback is read.
  let found = lookBack(input.messages.length + NEAR_END)
  if (found.j === 0 || found.j < input.messages.length - 1) found = lookBack(input.messages.length + BRANCH_LOOKBACK)
  const { tail, j, i } = found
  if (j === 0 && (await isSideConversation(input, deps))) return passthroughTurn(input, deps)
  const point: RewindPoint | null =
    i > 0
      ? { to: tail.messages[i - 1]!.id, position: 'at' }
      : after === undefined
        ? { to: null, position: 'at' }
        : steps.viewAt(after)
  const rewound = point && deps.session.rewindFirst(point, 'divergence', 'messages')
  deps.onRewound?.(rewound?.abandoned ?? 0)
  const fresh = input.messages.slice(j)
  if (!asksTurn(fresh)) {
    throw new ServiceError(
      'invalid_request',
      `${input.fields.at(-1)}: the last message must be a user or tool message the session does not hold yet`,
    )
  }
  // What follows the branch point is stored as sent (as a client seeds a session) when it holds
  // replies of its own; else it is the usual new messages.
  return newMessagesTurn(
    input,
    fresh,
    fresh.some((message) => message.role === 'assistant'),
    deps,
    store,
  )
}
