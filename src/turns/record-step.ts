import { ServiceError } from '../contract/errors'
import { clientCallsOf, type PromptFitReport, type TurnResult } from '../contract/turn-result'
import { absorb, type MessageEvent } from '../core'
import { type ChatReply, toServiceError } from '../models/port'
import { turnEvent } from './open-step'
import { withRecall } from './recall'
import type { TurnDeps } from './session'
import type { PreparedStep, StepInput } from './step'
import type { StepCaller } from './step-caller'

/** What the step's first model call answered, and how its prompt was fitted. */
export interface FirstCall {
  caller: StepCaller
  reply: ChatReply
  context: PromptFitReport
}

/**
 * The step's events written: the rounds of the service's tools run (recall, memory: see
 * `withRecall`), then its system message, added events, those rounds, the reply and any results
 * of the service's calls after it, in one append with the step's record for retries; the next turn
 * on the session may then start. An empty reply writes nothing (a retry should start clean).
 */
export async function recordStep(
  step: PreparedStep,
  first: FirstCall,
  deps: TurnDeps,
  options: { recall: { on: boolean; across: boolean }; memory: boolean; idempotency: StepInput['idempotency'] },
): Promise<TurnResult> {
  const { reply, context, caller } = first
  if ((reply.content ?? '').trim() === '' && reply.toolCalls.length === 0) {
    throw new ServiceError('upstream_error', 'the model answered with an empty reply')
  }
  // What the model reported for the prompt we estimated: the session learns how it counts.
  if (reply.usage) context.calibration = absorb(step.calibration, reply.usage.promptTokens, context.promptTokens)
  const modelMetadata = { model: reply.model ?? step.modelName }
  const recall = await withRecall(reply, {
    enabled: options.recall.on,
    own: (made) => caller.own(made),
    again: (events, offer) => caller.call(events, offer).catch((error) => Promise.reject(toServiceError(error))),
    search: (query, limit, scope) =>
      scope === 'all_sessions' && options.recall.across && deps.recallAcross
        ? deps.recallAcross(query, limit)
        : deps.session.recall(query, limit),
    byId: (id) => deps.session.recallById(id),
    // A round's assistant message is marked: its text was never handed to the client as a message of its own.
    event: (message, metadata = {}) =>
      turnEvent(
        message,
        deps.estimator,
        undefined,
        message.role === 'assistant' ? { ...modelMetadata, serviceRound: true } : metadata,
      ),
    ...(options.memory && deps.memory ? { memory: deps.memory } : {}),
  })
  const { calls, reply: final } = recall
  const assistant = turnEvent(
    {
      role: 'assistant',
      content: final.content,
      ...(calls.length > 0 ? { toolCalls: calls } : {}),
      ...(final.reasoning ? { reasoning: final.reasoning } : {}),
    },
    deps.estimator,
    step.replyId,
    { model: final.model ?? step.modelName },
  )
  const events = [
    ...(step.systemEvent ? [step.systemEvent] : []),
    ...step.added,
    ...recall.events,
    assistant,
    ...(recall.after ? [recall.after] : []),
  ]
  const written = await deps.session.writeTurn(events, {
    // A step that adds nothing (a request that goes on) is recorded under its reply.
    keyId: step.keyId ?? step.added[0]?.id ?? assistant.id,
    replyId: assistant.id,
    firstSeq: step.earlier[0]?.seq,
    usage: recall.usage,
    idempotency: options.idempotency,
    calibration: context.calibration,
  })
  deps.written()
  const stored = written.find((event) => event.id === assistant.id) as MessageEvent
  return {
    reply: stored,
    ...clientCallsOf(stored),
    events: [...step.earlier, ...written],
    compaction: null,
    usage: recall.usage,
    context,
    finishReason: final.finishReason,
    ...(final.stopSequence !== undefined ? { stopSequence: final.stopSequence } : {}),
  }
}
