import { turnPolicy } from '../compaction/policy'
import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import { contentTooLarge } from '../contract/limits'
import { type Policy, recallOf } from '../contract/schemas'
import { type Trigger, UNCALIBRATED } from '../core'
import { MEMORY_PROMPT } from '../memory'
import { NOT_CONFIGURED } from '../models/config'
import { planFit } from './fit-prompt'
import { closeInterruptedCalls, turnEvent } from './open-step'
import { recallTokensOf } from './recall'
import type { TurnDeps } from './session'
import { type PreparedStep, type StepInput, type StepRequest, tokensOf } from './step'

/**
 * The first phase of a step: the request checked (a model configured, each added event within
 * its size), calls left pending closed when the user moved on (written at once, in an append of
 * their own), and what the step sends decided from the session's state: the turn's model and its
 * budget, the policy, a new system message, the tools' tokens.
 */
export async function prepareStep(input: StepInput, request: StepRequest, deps: TurnDeps): Promise<PreparedStep> {
  const { session, models, estimator } = deps
  if (!models.model) throw new ServiceError('not_configured', NOT_CONFIGURED)
  if (models.problem) throw new ServiceError('not_configured', models.problem)
  for (const [i, event] of input.added.entries()) {
    const tooLarge = contentTooLarge(input.fields[i]!, event.message)
    if (tooLarge) throw tooLarge
  }
  const memory = request.memory === true && deps.memory !== undefined
  if (memory && request.tools?.some((tool) => tool.function.name === 'memory'))
    throw new ServiceError('invalid_request', 'tools: "memory" is the service’s own tool while memory is on')
  const earlier = input.closesPending ? await closeInterruptedCalls(session, estimator) : []
  const state = await session.promptState()
  const { maxTokens, ...asked } = request.options ?? {}
  // A client's own key first; else the session's, when the deployment sets one (PROMPT_CACHE_KEY=session).
  const options =
    asked.promptCacheKey === undefined && deps.promptCacheKey ? { ...asked, promptCacheKey: deps.promptCacheKey } : asked
  // The request's maxTokens replaces CHAT_MAX_TOKENS for this call and in its fit check.
  const replyTokens = maxTokens ?? models.replyTokens
  const modelName = request.model ?? models.chatModel
  const contextTokens = models.contextTokensOf(modelName)
  const replyRoom = request.replyRoomAtMostHalf ? Math.min(replyTokens, Math.floor(contextTokens / 2)) : replyTokens
  const calibration = state?.calibration ?? UNCALIBRATED
  const recall = recallOf(request.recall)
  return {
    model: models.model,
    modelName,
    replyTokens,
    options,
    // The turn's own model decides the budget; estimates are scaled by what the model was seen to count.
    fit: { promptBudget: contextTokens - replyRoom, ratio: calibration.ratio },
    calibration,
    policy: withTrigger(
      turnPolicy({
        requested: request.compaction,
        session: state?.policy ?? null,
        deployment: deps.deploymentPolicy,
        summaries: true,
      }),
      request.compactionTrigger,
    ),
    // Written only when it differs from the latest stored one.
    systemEvent:
      request.system !== undefined && request.system !== state?.latestSystem?.content
        ? turnEvent({ role: 'system', content: request.system }, estimator)
        : null,
    // The tools are sent with the prompt: their JSON counts toward it (the memory tool's with its instruction).
    toolsTokens:
      (request.tools ? estimator.count(JSON.stringify(request.tools)) : 0) + (memory ? estimator.count(MEMORY_PROMPT) : 0),
    // The definition as offered: with its scope when the request lets it search all sessions.
    recallTokens: recallTokensOf(recall.across, estimator),
    recallRequested: recall.on,
    summaryReserve: models.summaryTokens,
    earlier,
    added: input.added,
    ...(input.keyId === undefined ? {} : { keyId: input.keyId }),
    replyId: newEventId(),
  }
}

/** A policy with the request's own trigger, when it gives one (none: no pass at all stays none). */
const withTrigger = (policy: Policy | null, trigger: Trigger | undefined): Policy | null =>
  policy && trigger ? { ...policy, trigger } : policy

/**
 * A seed too long for one prompt: its first `history` events are stored ahead of the step, for
 * compaction to cover — only when the prompt then fits where it did not with them, or always when
 * the request's own edits would pass over it (`first`: a clearing or a compaction it asks for acts
 * on what is stored). Answers the step as it then is.
 */
export async function seedHistoryFirst(
  step: PreparedStep,
  history: number,
  deps: TurnDeps,
  first = false,
): Promise<PreparedStep> {
  if (history === 0) return step
  const seeded = step.added.slice(0, history)
  const state = await deps.session.promptState()
  const ahead = tokensOf(seeded)
  if (!first && planFit(step, state, { passes: 0 }).kind !== 'overflow') return step
  if (planFit(step, state, { passes: 0, ahead }).kind === 'overflow') return step
  const written = await deps.session.writeHistory(seeded)
  return { ...step, earlier: [...step.earlier, ...written], added: step.added.slice(history) }
}
