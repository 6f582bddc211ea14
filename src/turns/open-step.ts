import { type ErrorCode, ServiceError, sessionNotFound } from '../contract/errors'
import { newEventId } from '../contract/ids'
import type { TurnInput } from '../contract/schemas'
import { storedResult, type TurnResult } from '../contract/turn-result'
import {
  type Content,
  interruptedResults,
  type Message,
  type Metadata,
  type NewMessageEvent,
  newMessageEvent,
  planToolResults,
  type SessionEvent,
  type TokenEstimator,
  type ToolResultInput,
  type ToolResultsRefusal,
} from '../core'
import type { TurnSession } from './session'

/**
 * The first step of a request on `/turns`: either it was done before (a retry answers the stored
 * result), or the one event the prompt ends with — a content turn's user message, or the tool
 * event of a continuation — which is written with the reply.
 */
export type OpenedStep = { kind: 'done'; result: TurnResult } | { kind: 'open'; added: NewMessageEvent }

const now = () => new Date().toISOString()

/** A message event of the turn, timestamped now. */
export const turnEvent = (message: Message, estimator: TokenEstimator, id = newEventId(), metadata: Metadata = {}) =>
  newMessageEvent({ id, message, timestamp: now(), metadata }, estimator)

/** A content turn: a retried id answers the stored result of its first step; else the new user message. */
export async function openContentTurn(
  input: TurnInput & { content: Content },
  session: TurnSession,
  estimator: TokenEstimator,
): Promise<OpenedStep> {
  if (input.id !== undefined) {
    const done = (await session.stepLog())?.completedTurn(input.id, input.content) ?? null
    if (done === 'conflict') {
      throw new ServiceError(
        'id_conflict',
        `event id "${input.id}" is already in the log, but not as the user message of a completed turn with this content`,
      )
    }
    if (done) return { kind: 'done', result: storedResult(done) }
  }
  return { kind: 'open', added: turnEvent({ role: 'user', content: input.content }, estimator, input.id) }
}

/** The contract's code for each way tool results are refused (an id that is not pending is a 400). */
const REFUSAL_CODE: Record<ToolResultsRefusal, ErrorCode> = {
  id_conflict: 'id_conflict',
  no_pending_tool_calls: 'no_pending_tool_calls',
  unknown_tool_call: 'invalid_request',
  tool_results_incomplete: 'tool_results_incomplete',
}

/**
 * A continuation: its results checked against the newest turn in the contract's order (nothing
 * is written when one fails); a retry answers the stored result; else the tool event to add.
 */
export async function openContinuation(
  results: readonly ToolResultInput[],
  session: TurnSession,
  estimator: TokenEstimator,
  fieldOf?: Parameters<typeof planToolResults>[2],
): Promise<OpenedStep> {
  if (!(await session.promptState())) throw sessionNotFound()
  const plan = planToolResults(await session.newestTurn(), results, fieldOf)
  switch (plan.kind) {
    case 'refused':
      throw new ServiceError(REFUSAL_CODE[plan.code], plan.message)
    case 'retry': {
      // Results sent through /events, then a reply: that reply, as the log has it.
      const stored = (await session.stepLog())?.storedStep(plan.results.id) ?? {
        reply: plan.reply,
        events: [plan.results, plan.reply],
        usage: null,
      }
      return { kind: 'done', result: storedResult(stored) }
    }
    case 'continue':
      return { kind: 'open', added: turnEvent(plan.message, estimator, undefined, plan.metadata) }
  }
}

/**
 * When the user moves on while the newest turn's calls are pending: one tool event answering
 * each of them as interrupted, appended on its own (it stays written whatever happens next).
 * Answers what it wrote.
 */
export async function closeInterruptedCalls(session: TurnSession, estimator: TokenEstimator): Promise<SessionEvent[]> {
  const message = interruptedResults(await session.newestTurn())
  if (!message) return []
  const { version } = await session.readView()
  return session.append([turnEvent(message, estimator, undefined, { interrupted: true })], version)
}
