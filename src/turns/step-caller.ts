import { toOpenAIMessages } from '../contract/openai-messages'
import { recallOf, type ToolInput } from '../contract/schemas'
import type { AppliedEdit, PromptFitReport } from '../contract/turn-result'
import { allSeqs, clearedById, isServiceCall, type NewMessageEvent, type ToolCall, textOf, viewEvents } from '../core'
import { MEMORY_DEFINITION, withMemoryInstruction } from '../memory'
import { type ChatReply, toServiceError, UpstreamError } from '../models/port'
import { CallIds } from './call-ids'
import { thinkingSent } from './context-edits'
import { fitPrompt, offersRecall, overflow, planFit } from './fit-prompt'
import { promptMedia } from './prompt-media'
import { recallDefinition } from './recall'
import type { TurnDeps } from './session'
import type { PreparedStep, StepRequest } from './step'

/**
 * The model calls of one step: the prompt made from the view, the step's events and any recall or
 * memory round's, the reply's deltas and whole tool calls passed on as they come, the usage spent.
 * Each call's tool calls get ids new to the log and to this request (see {@link CallIds}). The
 * service's own tools go with the client's: `recall_history` with `recall`, the memory tool with
 * `memory` (and, then, its instruction after the system prompt, on every call of the request).
 */
export class StepCaller {
  /** Ids the calls of earlier replies of this request took (their recall rounds are written later). */
  private readonly taken = new Set<string>()
  private ids: CallIds
  /** What the request's thinking edit left out of the last call's prompt (null: nothing). */
  thinkingCleared: AppliedEdit | null = null

  /** `reached` is told when the model is first called (the step then counts as a model turn). */
  constructor(
    private readonly step: PreparedStep,
    private readonly request: StepRequest,
    private readonly deps: TurnDeps,
    private readonly reached: () => void,
  ) {
    this.ids = this.newIds()
  }

  private newIds(): CallIds {
    return new CallIds(
      (list) => new Set([...this.deps.session.usedToolIds(list), ...list.filter((id) => this.taken.has(id))]),
      this.memory,
    )
  }

  /** Whether the request offers the memory tool (run against the user's store the turn was given). */
  private get memory(): boolean {
    return this.request.memory === true && this.deps.memory !== undefined
  }

  /** Whether the calls offer `recall_history`: the request turned it on, or the view shows what only recall brings back. */
  recallOffered = false

  /** The tools sent: the client's, and the service's own the request turned on unless `own` is false (the last round's call). */
  private tools(own: boolean): ToolInput[] | undefined {
    const recall = recallDefinition(recallOf(this.request.recall).across)
    const service = own ? [...(this.recallOffered ? [recall] : []), ...(this.memory ? [MEMORY_DEFINITION] : [])] : []
    return service.length > 0 ? [...(this.request.tools ?? []), ...service] : this.request.tools
  }

  /** One call with the view, the step's events and `extra` (the service's tool rounds); its own tools offered unless `own` is false. */
  async call(extra: NewMessageEvent[] = [], own = true): Promise<ChatReply> {
    const { step, request, deps } = this
    const snapshot = await deps.session.readView()
    // The view as the model is shown it: what a clearing cleared, cleared (the same bytes every time).
    const view = viewEvents(await deps.session.readEvents(allSeqs(snapshot.view)), clearedById(snapshot.cleared))
    const stepSystem = step.systemEvent ? textOf(step.systemEvent.message.content) : undefined
    const state = await deps.session.promptState()
    // Decided at the step's first call, kept for its rounds: a cleared result is recalled by id.
    this.recallOffered ||= offersRecall(step, state)
    const stored = stepSystem ?? state?.latestSystem?.content ?? null
    // Told once, in the system prompt, to look at its memory first (as Anthropic's API tells it).
    const system = this.memory ? withMemoryInstruction(stored) : stored
    this.ids = this.newIds()
    const ids = this.ids
    let position = 0
    this.reached()
    // The turn a live subscriber sees the reply's pieces under: its user event (a continuation's first added event).
    deps.onReply?.(step.replyId, true, step.keyId ?? step.added[0]?.id ?? step.replyId)
    // A thinking edit leaves the older turns' thinking out of what is sent (see `thinkingSent`).
    const upstream = { takesThinking: deps.models.takesThinking(step.modelName), ratio: step.fit.ratio }
    const prompt = thinkingSent([...view, ...step.added, ...extra], request.contextEdits, upstream, deps)
    this.thinkingCleared = prompt.applied
    const media = promptMedia(deps.session, request, deps.models)
    const messages = toOpenAIMessages(prompt.events, system, media)
    const reply = await step.model.chat({
      model: step.modelName,
      messages,
      ...summaryIndexOf(prompt.events, system, media),
      maxTokens: step.replyTokens,
      onDelta: request.stream || deps.watched?.() ? deps.onDelta : undefined,
      onReasoning: request.stream ? deps.onReasoning : undefined,
      onToolCall: request.stream
        ? (made) => {
            const owned = ids.at(position++, made)
            if (!isServiceCall(owned)) deps.onToolCall?.(owned)
          }
        : undefined,
      tools: this.tools(own),
      toolChoice: request.toolChoice,
      parallelToolCalls: request.parallelToolCalls,
      options: step.options,
      anthropic: request.anthropic,
    })
    await deps.limiter?.spend(reply.usage)
    return reply
  }

  /** The last reply's calls with the ids they are stored with, taken for this request. */
  own(reply: ChatReply): ToolCall[] {
    const owned = this.ids.all(reply.toolCalls)
    for (const { id } of owned) this.taken.add(id)
    return owned
  }
}

/** Whether a failed call is the upstream refusing the prompt as too long (the one failure a turn answers by compacting). */
/**
 * Where the view's summary ends among a prompt's messages (the message of its first summary event,
 * what passes keep in place), for an upstream's cache breakpoint; nothing without a summary.
 */
function summaryIndexOf(...[events, system, media]: Parameters<typeof toOpenAIMessages>): { summaryIndex?: number } {
  const at = events.findIndex((event) => event.synthetic === true)
  return at < 0 ? {} : { summaryIndex: toOpenAIMessages(events.slice(0, at + 1), system, media).length - 1 }
}

const refusedAsTooLong = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError && error.failure === 'context_length'

/**
 * The step's first model call, its prompt fitted first. When the upstream refuses the prompt as
 * too long although our estimate fit (it counts differently), the prompt is compacted harder and
 * the call retried once; a second refusal is the 413. Answers the reply and how the prompt was fitted.
 */
export async function callFitted(
  step: PreparedStep,
  caller: StepCaller,
  deps: TurnDeps,
): Promise<{ reply: ChatReply; context: PromptFitReport }> {
  const fitted = await fitPrompt(step, deps)
  const context: PromptFitReport = { ...fitted, budget: step.fit.promptBudget, retried: false, calibration: step.calibration }
  try {
    return { reply: await caller.call(), context }
  } catch (error) {
    if (!refusedAsTooLong(error) || error.options.outputStarted) throw toServiceError(error)
    const refitted = await fitPrompt(step, deps, error.message)
    context.promptTokens = refitted.promptTokens
    context.compactions.push(...refitted.compactions)
    context.retried = true
    try {
      return { reply: await caller.call(), context }
    } catch (again) {
      if (!refusedAsTooLong(again)) throw toServiceError(again)
      const state = await deps.session.promptState()
      const plan = planFit(step, state, { passes: 0, refused: { passes: 1, message: again.message, again: true } })
      throw overflow(plan.kind === 'overflow' ? plan.message : again.message)
    }
  }
}
