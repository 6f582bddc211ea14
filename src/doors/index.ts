import { ServiceError } from '../contract/errors'
import { storedResult, type TurnResult } from '../contract/turn-result'
import {
  branchPoint,
  type ClientMessage,
  type MessageEvent,
  type NewMessageEvent,
  pendingToolCalls,
  reconcile,
  type TokenEstimator,
  type ToolCall,
} from '../core'
import { openContinuation, turnEvent } from '../turns/open-step'
import { regenerate, runStep } from '../turns/run-turn'
import type { TurnDeps } from '../turns/session'
import type { StepRequest } from '../turns/step'
import type { OnDiverge } from './on-diverge'

/** A door's request as the session object takes it (see `./chat-completions/request` for how one is made). */
export interface DoorInput {
  /** The request's messages other than system and developer ones, as the client sent them. */
  messages: ClientMessage[]
  /** Where each of them is in the request's `messages`, for errors naming it. */
  positions: number[]
  /** The model call's settings; `system` is the request's last system or developer message. */
  request: StepRequest
  /** The `Idempotency-Key` header, with the SHA-256 of the request's `messages` as JSON. */
  idempotency?: { key: string; hash: string }
  /** A history that left the session's: taken as a rewind to where it branched off (default), or refused with a 409. */
  onDiverge?: OnDiverge
  /** A request that repeats an answered one regenerates its reply instead of answering the stored one. */
  regenerate?: boolean
}

export { type OnDiverge, onDivergeOf } from './on-diverge'

/** How far back a diverged request's branch point is looked for, beyond the request's own length (messages). */
export const BRANCH_LOOKBACK = 10_000

/**
 * One door request with the session's memory: an `Idempotency-Key` seen before answers its first
 * result; the request's messages are reconciled with the lineage's (see the core's `reconcile`) —
 * a retry answers the stored reply (or, asked to regenerate, a new one), a history that left the
 * session's rewinds to where it branched off (see {@link divergedTurn}), else only what is new is
 * written, with the reply, as one turn step (leading tool messages are a continuation's results).
 *
 * @example
 * const result = await doorTurn({ messages: [{ role: 'user', content: 'Hi' }], positions: [0], request: {} }, deps)
 */
export async function doorTurn(input: DoorInput, deps: TurnDeps): Promise<TurnResult> {
  const { session } = deps
  const steps = await session.stepLog()
  if (input.idempotency && steps) {
    const found = steps.idempotent(input.idempotency.key)
    if (found && found.hash !== input.idempotency.hash) {
      throw new ServiceError('id_conflict', `Idempotency-Key "${input.idempotency.key}" was sent before with other messages`)
    }
    if (found) return storedResult(found.step)
  }
  const tail = steps?.clientTail(input.messages.length) ?? { messages: [], empty: true }
  const reconciled = reconcile(
    input.messages,
    tail.messages.map((shown) => shown.message),
    { logIsEmpty: tail.empty },
  )
  const field = (at: number) => `messages[${input.positions[at]}]`
  if (reconciled.kind === 'refused') {
    if (reconciled.code === 'history_diverged' && (input.onDiverge ?? 'rewind') === 'rewind') return divergedTurn(input, deps)
    throw new ServiceError(reconciled.code, `${field(reconciled.at)}: ${reconciled.reason}`)
  }
  if (reconciled.kind === 'retry') {
    if (input.regenerate) return regenerate(undefined, input.request, deps)
    return storedResult(steps!.storedReply(tail.messages.at(-1)!.seq))
  }
  return newMessagesTurn(input, reconciled.messages, reconciled.seeding, deps)
}

/**
 * A history that left the session's (an edit, a regenerate by resending, a client that rewrote
 * or compacted its own copy): the request means a rewind to where it branches off the lineage
 * (the core's `branchPoint`, looked for within {@link BRANCH_LOOKBACK} messages beyond the
 * request's length), then what follows that point is new. The REWIND (`divergence`) goes with
 * the turn's first write; a history that shares nothing starts a fresh lineage holding what it
 * sent. `onRewound` is told what the rewind abandons.
 */
async function divergedTurn(input: DoorInput, deps: TurnDeps): Promise<TurnResult> {
  const tail = (await deps.session.stepLog())!.clientTail(input.messages.length + BRANCH_LOOKBACK)
  const { j, i } = branchPoint(
    input.messages,
    tail.messages.map((shown) => shown.message),
  )
  const to = i === 0 ? null : tail.messages[i - 1]!.id
  const rewound = deps.session.rewindFirst({ to, position: 'at' }, 'divergence', 'messages')
  deps.onRewound?.(rewound?.abandoned ?? 0)
  const fresh = input.messages.slice(j)
  const last = fresh.at(-1)
  if (!last || last.role === 'assistant') {
    throw new ServiceError(
      'invalid_request',
      `messages[${input.positions.at(-1)}]: the last message must be a user or tool message the session does not hold yet`,
    )
  }
  // What follows the branch point is stored as sent (as a client seeds a session) when it holds
  // replies of its own; else it is the usual new messages.
  return newMessagesTurn(
    input,
    fresh,
    fresh.some((message) => message.role === 'assistant'),
    deps,
  )
}

/** The request's new messages written with the reply, as one turn step (see {@link doorTurn}). */
async function newMessagesTurn(
  input: DoorInput,
  fresh: readonly ClientMessage[],
  seeding: boolean,
  deps: TurnDeps,
): Promise<TurnResult> {
  const { session, estimator } = deps
  const start = input.messages.length - fresh.length
  const fields = fresh.map((_, i) => `messages[${input.positions[start + i]}]`)
  const step = { idempotency: input.idempotency }
  if (seeding) {
    // A seed after a branch point may begin with the results of the calls the view there owes.
    const owed = fresh[0]?.role === 'tool' ? owedCalls(await session.newestTurn()) : []
    const seeded = seedEvents(fresh, fields, estimator, owed)
    return runStep({ ...seeded, ...step, closesPending: false, history: historyOf(seeded.added) }, input.request, deps)
  }

  // Leading tool messages answer the pending calls, as `toolResults` would; then user messages.
  let results = 0
  while (results < fresh.length && fresh[results]!.role === 'tool') results++
  const added: NewMessageEvent[] = []
  if (results > 0) {
    const given = fresh.slice(0, results).map((message) => ({ id: message.toolCallId!, data: message.content }))
    const key = (at: number, part: 'id' | 'name') => `${fields[at]}.${part === 'id' ? 'tool_call_id' : 'name'}`
    const opened = await openContinuation(given, session, estimator, key)
    if (opened.kind === 'done') return opened.result
    added.push(opened.added)
  }
  for (const [i, message] of fresh.entries()) {
    if (i < results) continue
    if (message.role === 'tool') throw strayResult(fields[i]!)
    added.push(turnEvent({ role: 'user', content: message.content }, estimator))
  }
  // A continuation's tool event stands for all its results: named by the first.
  const addedFields = results > 0 ? [fields[0]!, ...fields.slice(results)] : fields
  return runStep({ ...step, added, fields: addedFields, closesPending: results === 0 }, input.request, deps)
}

/** The calls of the newest turn that no tool message has answered yet. */
function owedCalls(turn: readonly MessageEvent[]): ToolCall[] {
  const pending = new Set(pendingToolCalls(turn))
  return turn.flatMap((event) => event.message.toolCalls ?? []).filter((call) => pending.has(call.id))
}

/**
 * A history a client seeds a session with, as events: each message as it is, consecutive tool
 * messages as one tool event (each response named as the call it answers: one of the seed's, or
 * one the session `owed` already).
 */
function seedEvents(
  messages: readonly ClientMessage[],
  fields: readonly string[],
  estimator: TokenEstimator,
  owed: readonly ToolCall[] = [],
): { added: NewMessageEvent[]; fields: string[] } {
  const calls = new Map<string, ToolCall>(owed.map((call) => [call.id, call]))
  const events: NewMessageEvent[] = []
  const named: string[] = []
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'tool') {
      for (const call of message.toolCalls ?? []) calls.set(call.id, call)
      events.push(
        turnEvent(
          { role: message.role, content: message.content, ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}) },
          estimator,
        ),
      )
      named.push(fields[i]!)
      continue
    }
    const call = calls.get(message.toolCallId!)
    if (!call) throw strayResult(fields[i]!)
    const response = { id: call.id, name: call.name, data: message.content }
    const previous = events.at(-1)
    if (previous?.message.role === 'tool' && messages[i - 1]?.role === 'tool') {
      events[events.length - 1] = turnEvent(
        { ...previous.message, toolResponses: [...previous.message.toolResponses!, response] },
        estimator,
        previous.id,
      )
    } else {
      events.push(turnEvent({ role: 'tool', content: null, toolResponses: [response] }, estimator))
      named.push(fields[i]!)
    }
  }
  return { added: events, fields: named }
}

/**
 * How many of a seed's events are history: those before the user messages it ends with (the turn
 * they ask). None when it ends otherwise: its end is then a turn of its own, stored as it is.
 */
function historyOf(events: readonly NewMessageEvent[]): number {
  let at = events.length
  while (at > 0 && events[at - 1]!.message.role === 'user') at--
  return at === events.length ? 0 : at
}

const strayResult = (field: string) =>
  new ServiceError('invalid_request', `${field}: a tool message must follow the assistant message whose call it answers`)

/** What the Worker needs of a door turn's result to answer in its wire format: small, whatever its compactions listed. */
export interface DoorAnswer {
  reply: TurnResult['reply']
  status: TurnResult['status']
  usage: TurnResult['usage']
  /** As the upstream reported it; for a stored result, `tool_calls` or `stop`. */
  finishReason: string
}

export function doorAnswer(result: TurnResult): DoorAnswer {
  const stored = result.status === 'requires_action' ? 'tool_calls' : 'stop'
  const finishReason = result.status === 'requires_action' ? 'tool_calls' : (result.finishReason ?? stored)
  return { reply: result.reply, status: result.status, usage: result.usage, finishReason }
}
