import {
  type CompactionResult,
  type MessageEvent,
  type MessageSkeleton,
  type NewMessageEvent,
  newMessageEvent,
  type SessionEvent,
  type TokenEstimator,
  type Trigger,
  type Window,
} from '../../core'
import { ApiError, type ApiErrorBody, fail } from '../../errors'
import { LIMITS } from '../../limits'
import type { ModelSettings } from '../../models/config'
import { NOT_CONFIGURED } from '../../models/config'
import { type OpenAIMessage, toOpenAIMessages } from '../../models/openai-format'
import { type ChatReply, UpstreamError, type Usage } from '../../models/port'
import type { Policy, StrategySpec } from '../../policy'
import type { SessionRecord } from './record'

export interface TurnInput {
  id?: string
  content: string
  system?: string
  model?: string
  stream?: boolean
  /** The compaction after the turn (and the strategy for making room before it); false: none. */
  compaction?: Policy | false
}

/** What happened to fit the prompt into the model's context budget. */
export interface ContextReport {
  promptTokens: number
  budget: number
  /** Passes run before the model call (they stay written even if the call then failed). */
  compactions: CompactionResult[]
  /** Whether the upstream refused the prompt as too long and the turn was retried once. */
  retried: boolean
}

export interface TurnResult {
  reply: MessageEvent
  events: SessionEvent[]
  compaction: CompactionResult | null | { error: { code: string; message: string } }
  usage: Usage | null
  context: ContextReport | null
}

/** What the session object streams back for a turn: text as it comes, then one end frame. */
export type TurnFrame =
  | { type: 'delta'; text: string }
  | { type: 'done'; result: TurnResult }
  | { type: 'error'; error: ApiErrorBody }

/** What a turn needs from the session object that runs it. */
export interface TurnHost {
  settings: ModelSettings
  estimator(): Promise<TokenEstimator>
  /** The session (null if absent) and its full view. */
  read(): Promise<{ record: SessionRecord | null; view: MessageEvent[] }>
  /** A completed turn by its user event id: its result, 'conflict' if the id means something else, or null. */
  completed(id: string, content: string): Promise<TurnResult | 'conflict' | null>
  /** Runs a compaction pass now (summarizer errors are thrown as ApiErrors). */
  compact(request: { trigger?: Trigger; strategy: StrategySpec; pending?: MessageSkeleton[] }): Promise<CompactionResult>
  /** Writes the turn's events in one append, with its record for retries; creates the session if needed. */
  write(events: NewMessageEvent[], usage: Usage | null): Promise<SessionEvent[]>
  /** The policy for this turn: the request's, the session's, the deployment's or the built-in one. */
  policy(requested: Policy | false | undefined, record: SessionRecord | null): Policy | null
}

const newId = () => `evt_${crypto.randomUUID().replaceAll('-', '')}`

/** Prompt = the system message (the request's, else the latest stored), the view's other events, the new user message. */
export function promptOf(view: MessageEvent[], system: string | null, user: string): OpenAIMessage[] {
  const rest = toOpenAIMessages(view).filter((message) => message.role !== 'system')
  return [...(system !== null ? [{ role: 'system' as const, content: system }] : []), ...rest, { role: 'user', content: user }]
}

const latestSystem = (view: MessageEvent[]) =>
  view.reduce<MessageEvent | null>(
    (latest, e) => (e.message.role === 'system' && (!latest || e.seq > latest.seq) ? e : latest),
    null,
  )

/**
 * One chat turn, as the HTTP contract describes it: make the prompt fit (compacting first if
 * needed), call the model (streaming deltas through `emit`), write system?/user/assistant in one
 * append, then compact by policy. Compaction after the turn never fails it.
 */
export async function runTurn(host: TurnHost, input: TurnInput, emit: (frame: TurnFrame) => void): Promise<TurnResult> {
  const { settings } = host
  if (input.id !== undefined) {
    const done = await host.completed(input.id, input.content)
    if (done === 'conflict')
      throw fail(
        409,
        'id_conflict',
        `event id "${input.id}" is already in the log, but not as the user message of a completed turn with this content`,
      )
    if (done) return done
  }
  if (!settings.model) throw fail(503, 'not_configured', NOT_CONFIGURED)
  const model = settings.model
  if (new TextEncoder().encode(input.content).length > LIMITS.eventContentBytes) {
    throw fail(413, 'payload_too_large', `content: the limit is ${LIMITS.eventContentBytes} bytes`)
  }

  const estimator = await host.estimator()
  const now = new Date().toISOString()
  const userEvent = newMessageEvent(
    { id: input.id ?? newId(), message: { role: 'user', content: input.content }, timestamp: now },
    estimator,
  )
  let { record, view } = await host.read()
  const policy = host.policy(input.compaction, record)

  // The request's system message is written only when it differs from the latest stored one.
  const storedSystem = latestSystem(view)
  const systemEvent =
    input.system !== undefined && input.system !== storedSystem?.message.content
      ? newMessageEvent({ id: newId(), message: { role: 'system', content: input.system }, timestamp: now }, estimator)
      : null

  const budget = settings.contextTokens - settings.replyTokens
  const context: ContextReport = { promptTokens: 0, budget, compactions: [], retried: false }
  const measure = () => {
    const stored = latestSystem(view)?.tokens ?? 0
    const system = systemEvent?.tokens ?? stored
    const viewTokens = record?.stats.tokens ?? 0
    return { total: viewTokens - stored + system + userEvent.tokens, fixed: system + userEvent.tokens, stored }
  }

  /**
   * A pass that makes room for the new message (the pending user message counts as the newest
   * turn). If its summary fails, the same pass runs without one: the turn must still fit.
   */
  const makeRoom = async (window: Window | undefined, target: number) => {
    const { fixed, stored } = measure()
    const summarizing = Boolean(policy!.strategy.summarizer)
    const pass = (withSummary: boolean) => {
      const reserve = withSummary ? settings.summaryTokens : 0
      const tokenBudget = Math.max(1, target - fixed + stored - reserve)
      const strategy = {
        ...policy!.strategy,
        window: window ?? { tokenBudget },
        summarizer: withSummary ? policy!.strategy.summarizer : null,
      }
      return host.compact({ trigger: { always: true }, strategy, pending: [userEvent] })
    }
    let result: CompactionResult
    try {
      result = await pass(summarizing)
    } catch (error) {
      if (!summarizing) throw error
      console.warn(
        JSON.stringify({
          level: 'warn',
          message: 'summary before a turn failed; compacting without one',
          detail: String((error as Error).message),
        }),
      )
      result = await pass(false)
    }
    if (summarizing && (result.reason === 'summarizer_failed' || result.reason === 'summarizer_declined'))
      result = await pass(false)
    context.compactions.push(result)
    ;({ record, view } = await host.read())
  }

  if (measure().total > budget) {
    if (!policy)
      throw overflow(`the prompt needs ${measure().total} tokens, the budget is ${budget}, and compaction is off for this turn`)
    if (measure().fixed > budget)
      throw overflow(`the new message alone needs ${measure().fixed} tokens; the budget for a prompt is ${budget}`)
    await makeRoom(policy.strategy.window, budget)
    if (measure().total > budget) await makeRoom(undefined, budget)
    if (measure().total > budget)
      throw overflow(`the prompt needs ${measure().total} tokens even after compaction; the budget is ${budget}`)
  }

  const call = () => {
    context.promptTokens = measure().total
    const system = systemEvent?.message.content ?? latestSystem(view)?.message.content ?? null
    return model.chat({
      model: input.model ?? settings.chatModel,
      messages: promptOf(view, system, input.content),
      maxTokens: settings.replyTokens,
      onDelta: input.stream ? (text) => emit({ type: 'delta', text }) : undefined,
    })
  }

  let reply: ChatReply
  try {
    reply = await call()
  } catch (error) {
    if (!(error instanceof UpstreamError) || error.failure !== 'context_length' || error.options.outputStarted)
      throw upstream(error)
    // The upstream counts differently than our estimate: compact once more, harder, and retry once.
    if (!policy) throw overflow(`the model refused the prompt as too long (${error.message}) and compaction is off for this turn`)
    await makeRoom(undefined, Math.floor(measure().total / 2))
    context.retried = true
    try {
      reply = await call()
    } catch (again) {
      if (again instanceof UpstreamError && again.failure === 'context_length')
        throw overflow(`the model still refused the prompt as too long: ${again.message}`)
      throw upstream(again)
    }
  }

  if ((reply.content ?? '').trim() === '' && reply.toolCalls.length === 0) {
    // Nothing to store: a retry should start clean rather than find an empty reply in the log.
    throw fail(502, 'upstream_error', 'the model answered with an empty reply')
  }
  const assistant = newMessageEvent(
    {
      id: newId(),
      message: {
        role: 'assistant',
        content: reply.content,
        ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}),
      },
      timestamp: new Date().toISOString(),
      metadata: { model: input.model ?? settings.chatModel },
    },
    estimator,
  )
  const written = await host.write([...(systemEvent ? [systemEvent] : []), userEvent, assistant], reply.usage)
  const result: TurnResult = {
    reply: written.at(-1) as MessageEvent,
    events: written,
    compaction: null,
    usage: reply.usage,
    context,
  }

  if (policy) {
    try {
      result.compaction = await host.compact({ trigger: policy.trigger, strategy: policy.strategy })
    } catch (error) {
      const body = error instanceof ApiError ? error.body : { code: 'internal', message: 'compaction failed' }
      console.error(
        JSON.stringify({ level: 'error', message: 'compaction after a turn failed', code: body.code, detail: body.message }),
      )
      result.compaction = { error: { code: body.code, message: body.message } }
    }
  }
  return result
}

const overflow = (message: string) => fail(413, 'context_overflow', message)

/** An upstream failure in the contract's words (502), or the error itself if it is not one. */
export function upstream(error: unknown): unknown {
  if (error instanceof UpstreamError) return fail(502, 'upstream_error', `the model failed (${error.failure}): ${error.message}`)
  return error
}
