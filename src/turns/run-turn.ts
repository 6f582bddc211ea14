import { turnPolicy } from '../compaction/policy'
import { ServiceError } from '../contract/errors'
import { contentTooLarge } from '../contract/limits'
import { toOpenAIMessages } from '../contract/openai-messages'
import type { TurnInput } from '../contract/schemas'
import { type ContextReport, clientCallsOf, type TurnResult } from '../contract/turn-result'
import {
  absorb,
  allSeqs,
  type FitState,
  type FitStep,
  type ModelFit,
  type NewMessageEvent,
  planPromptFit,
  RECALL_TOOL,
  UNCALIBRATED,
} from '../core'
import { log } from '../log'
import { NOT_CONFIGURED } from '../models/config'
import { type ChatReply, toServiceError, UpstreamError } from '../models/port'
import { CallIds } from './call-ids'
import { admitted } from './limiter'
import { makeRoom } from './make-room'
import { closeInterruptedCalls, openContentTurn, openContinuation, turnEvent } from './open-step'
import { RECALL_DEFINITION, withRecall } from './recall'
import type { TurnDeps } from './session'

const overflow = (message: string) => new ServiceError('context_overflow', message)

/** What a step adds to the log with its reply, opened by `/turns` or by the front door. */
export interface TurnStep {
  /** The events the prompt ends with (a user message, a continuation's tool event, a client's new messages), in order. */
  added: NewMessageEvent[]
  /** The request field each added event came from, for a 413 naming it. */
  fields: string[]
  /** A new user message: calls left pending are closed as interrupted first. */
  closesPending: boolean
  /** An `Idempotency-Key` to record with the step. */
  idempotency?: { key: string; hash: string }
  /** How many of `added` are a seeded history: appended ahead of the step when the prompt would not fit with it. */
  history?: number
}

/** The settings of a step's model call: a turn request without what opens the step. */
export type StepRequest = Omit<TurnInput, 'id' | 'content' | 'toolResults'>

/**
 * One request on `/turns`, as the HTTP contract describes it: a retry answers the stored result;
 * else the step (a user message, or a continuation's tool event) runs (see {@link runStep}).
 */
export async function runTurn<L>(input: TurnInput, deps: TurnDeps<L>): Promise<TurnResult<L>> {
  const { session, estimator } = deps
  const content = input.content
  const opened =
    content !== undefined
      ? await openContentTurn({ ...input, content }, session, estimator)
      : await openContinuation(input.toolResults ?? [], session, estimator)
  if (opened.kind === 'done') return opened.result
  const field = content !== undefined ? 'content' : 'toolResults'
  return runStep({ added: [opened.added], fields: [field], closesPending: content !== undefined }, input, deps)
}

/**
 * One step of a turn: close calls left pending when the user moved on, fit the prompt
 * (compacting first if needed), call the model, write the step's events and the reply in one
 * append, then compact by policy. Compaction after the turn never fails it.
 */
export function runStep<L>(step: TurnStep, input: StepRequest, deps: TurnDeps<L>): Promise<TurnResult<L>> {
  return admitted(deps.limiter, (reached) => admittedStep(step, input, deps, reached))
}

/** {@link runStep} once the gate admitted it; `reached` marks the first model call. */
async function admittedStep<L>(step: TurnStep, input: StepRequest, deps: TurnDeps<L>, reached: () => void) {
  const { session, models, compactor, estimator } = deps
  const model = models.model
  if (!model) throw new ServiceError('not_configured', NOT_CONFIGURED)
  if (models.problem) throw new ServiceError('not_configured', models.problem)
  for (const [i, event] of step.added.entries()) {
    const tooLarge = contentTooLarge(step.fields[i]!, event.message)
    if (tooLarge) throw tooLarge
  }
  let added = step.added
  const tokensOf = (events: NewMessageEvent[]) => events.reduce((sum, event) => sum + event.tokens, 0)
  let addedTokens = tokensOf(added)
  // The user moved on: calls left pending are closed first, in an append of their own.
  const earlier = step.closesPending ? await closeInterruptedCalls(session, estimator) : []

  const { maxTokens, ...options } = input.options ?? {}
  // The request's maxTokens replaces CHAT_MAX_TOKENS for this call and in its fit check.
  const replyTokens = maxTokens ?? models.replyTokens
  // The tools are sent with the prompt: their JSON counts toward it.
  const toolsTokens = input.tools ? estimator.count(JSON.stringify(input.tools)) : 0
  let state = await session.promptState()
  const turnModel = input.model ?? models.chatModel
  // The turn's own model decides the budget; estimates are scaled by what the model was seen to count.
  const calibration = state?.calibration ?? UNCALIBRATED
  const fit: ModelFit = { promptBudget: models.contextTokensOf(turnModel) - replyTokens, ratio: calibration.ratio }
  const policy = turnPolicy({
    requested: input.compaction,
    session: state?.policy ?? null,
    deployment: deps.deploymentPolicy,
    summaries: models.model !== null,
  })
  // The request's system message is written only when it differs from the latest stored one.
  const systemEvent =
    input.system !== undefined && input.system !== state?.latestSystem?.content
      ? turnEvent({ role: 'system', content: input.system }, estimator)
      : null

  const context: ContextReport<L> = {
    promptTokens: 0,
    budget: fit.promptBudget,
    compactions: [],
    retried: false,
    calibration,
  }
  let passes = 0
  /** The plan for the prompt; `ahead`: as if added events of that many tokens were stored first. */
  const planFit = (refused?: FitState['refused'], ahead = 0): FitStep =>
    planPromptFit({
      // In estimate units: the budget as many estimated tokens as the model would count in it.
      budget: Math.floor(fit.promptBudget / fit.ratio),
      parts: {
        viewTokens: (state?.viewTokens ?? 0) + ahead,
        storedSystemTokens: state?.latestSystem?.tokens ?? 0,
        newSystemTokens: systemEvent?.tokens ?? null,
        addedTokens: addedTokens - ahead + toolsTokens,
      },
      canCompact: policy !== null,
      summaryReserve: models.summaryTokens,
      passes,
      refused,
    })

  /** Runs the plan's passes until the prompt fits (or throws 413); answers the prompt's tokens. */
  const makeFit = async (refusal?: string): Promise<number> => {
    for (let since = 0; ; since++) {
      const step = planFit(refusal === undefined ? undefined : { passes: since, message: refusal, again: false })
      if (step.kind === 'overflow') throw overflow(step.message)
      if (step.kind === 'call') return step.promptTokens
      // The added events are the newest turn's (a continuation's tool event joins the stored turn): never covered.
      context.compactions.push(await makeRoom(step, policy!, added, fit, deps))
      if (refusal === undefined) passes++
      state = await session.promptState()
    }
  }

  // Ids a reply's calls take must be new to the log and to this request (recall rounds write later).
  const taken = new Set<string>()
  const newIds = () => new CallIds((list) => new Set([...session.usedToolIds(list), ...list.filter((id) => taken.has(id))]))
  let ids = newIds()
  /** A model call with the view, the step's events and `extra` (recall rounds); recall offered when on. */
  const call = async (extra: NewMessageEvent[] = [], offerRecall = input.recall === true): Promise<ChatReply> => {
    const view = await session.readEvents(allSeqs((await session.readView()).view))
    const system = systemEvent?.message.content ?? state?.latestSystem?.content ?? null
    ids = newIds()
    let position = 0
    reached()
    const reply = await model.chat({
      model: turnModel,
      messages: toOpenAIMessages([...view, ...added, ...extra], system),
      maxTokens: replyTokens,
      onDelta: input.stream ? deps.onDelta : undefined,
      onToolCall: input.stream
        ? (made) => {
            const owned = ids.at(position++, made)
            if (owned.name !== RECALL_TOOL) deps.onToolCall?.(owned)
          }
        : undefined,
      tools: offerRecall ? [...(input.tools ?? []), RECALL_DEFINITION] : input.tools,
      toolChoice: input.toolChoice,
      parallelToolCalls: input.parallelToolCalls,
      options,
    })
    await deps.limiter?.spend(reply.usage)
    return reply
  }

  // A seed too long for one prompt: its history is stored first, for compaction to cover (only if the turn then fits).
  const history = added.slice(0, step.history ?? 0)
  const historyTokens = tokensOf(history)
  if (history.length > 0 && planFit().kind === 'overflow' && planFit(undefined, historyTokens).kind !== 'overflow') {
    earlier.push(...(await session.writeHistory(history)))
    added = added.slice(history.length)
    addedTokens -= historyTokens
    state = await session.promptState()
  }
  context.promptTokens = await makeFit()
  let reply: ChatReply
  try {
    reply = await call()
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.failure !== 'context_length' || error.options.outputStarted)
      throw toServiceError(error)
    // The upstream counts differently than our estimate: compact harder and retry once.
    context.promptTokens = await makeFit(error.message)
    context.retried = true
    try {
      reply = await call()
    } catch (again) {
      if (again instanceof UpstreamError && again.failure === 'context_length') {
        const step = planFit({ passes: 1, message: again.message, again: true })
        throw overflow(step.kind === 'overflow' ? step.message : again.message)
      }
      throw toServiceError(again)
    }
  }

  if ((reply.content ?? '').trim() === '' && reply.toolCalls.length === 0) {
    // Nothing to store: a retry should start clean rather than find an empty reply in the log.
    throw new ServiceError('upstream_error', 'the model answered with an empty reply')
  }
  // What the model reported for the prompt we estimated: the session learns how it counts.
  if (reply.usage) context.calibration = absorb(calibration, reply.usage.promptTokens, context.promptTokens)
  const modelMetadata = { model: reply.model ?? turnModel }
  const recall = await withRecall(reply, {
    enabled: input.recall === true,
    own: (made) => {
      const owned = ids.all(made.toolCalls)
      for (const { id } of owned) taken.add(id)
      return owned
    },
    again: (events, offer) => call(events, offer).catch((error) => Promise.reject(toServiceError(error))),
    search: (query, limit) => session.recall(query, limit),
    event: (message) => turnEvent(message, estimator, undefined, message.role === 'assistant' ? modelMetadata : {}),
  })
  const calls = recall.calls
  const final = recall.reply
  const assistant = turnEvent(
    { role: 'assistant', content: final.content, ...(calls.length > 0 ? { toolCalls: calls } : {}) },
    estimator,
    undefined,
    { model: final.model ?? turnModel },
  )
  const events = [
    ...(systemEvent ? [systemEvent] : []),
    ...added,
    ...recall.events,
    assistant,
    ...(recall.after ? [recall.after] : []),
  ]
  const written = await session.writeTurn(events, {
    keyId: added[0]!.id,
    replyId: assistant.id,
    firstSeq: earlier[0]?.seq,
    usage: recall.usage,
    idempotency: step.idempotency,
    calibration: context.calibration,
  })
  deps.written()
  const stored = written.find((event) => event.id === assistant.id) as TurnResult['reply']
  const result: TurnResult<L> = {
    reply: stored,
    ...clientCallsOf(stored),
    events: [...earlier, ...written],
    compaction: null,
    usage: recall.usage,
    context,
    finishReason: final.finishReason,
  }

  if (policy) {
    try {
      result.compaction = await compactor.run(session, session.info(), {
        trigger: policy.trigger,
        strategy: policy.strategy,
        model: { ...fit, ratio: context.calibration.ratio },
        spend: deps.limiter?.spend,
      })
    } catch (error) {
      // The turn is written: a failed pass is reported, never the turn's failure. A summarizer's
      // upstream failure was logged where it happened; anything else is a bug, logged here.
      if (!(error instanceof ServiceError)) log.error('compaction after a turn failed', { error: String(error) })
      result.compaction = {
        error: error instanceof ServiceError ? error.body : { code: 'internal', message: 'compaction failed' },
      }
    }
  }
  return result
}
