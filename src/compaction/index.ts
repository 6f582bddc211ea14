import { ServiceError } from '../contract/errors'
import { newEventId } from '../contract/ids'
import type { Policy, StrategySpec } from '../contract/schemas'
import type { Usage } from '../contract/turn-result'
import {
  analyzeColumns,
  type CompactionResult,
  compact,
  type MessageSkeleton,
  type ModelFit,
  type PreparedSummary,
  passDue,
  pastMark,
  prepareSummaries,
  type SessionInfo,
  type SessionStore,
  type Summarizer,
  type TokenEstimator,
  type Trigger,
} from '../core'
import { log } from '../log'
import { chatModelBudget, modelSettings, NOT_CONFIGURED } from '../models/config'
import { toServiceError, UpstreamError } from '../models/port'
import { modelSummarizer } from '../models/summarizer'
import type { PreparedSet, StoredPrepared } from '../store/log/prepared'
import { type Notice, newNotice } from '../webhooks'

/** The session a pass runs on: the core's store, and where the pass's notices go (its summary's usage, its failure). */
export interface PassSession extends SessionStore {
  /** Records notices with no change to the log (see `SessionStorage.notify`). */
  notify(notices: Notice[]): Promise<void>
  /** Counts what a model call the log does not record spent (a summary's, an unstored reply's): its usage notice. */
  spent(model: string, usage: Usage | null, kind: 'turn' | 'summary'): Promise<void>
  /** Whether the session wants a title from the summary model (it has none of its client's or a model's). */
  titleWanted?(): boolean
  /** Gives the session the title the summary model wrote (unless its client gave one meanwhile). */
  titled?(title: string): void
  /** The session's prepared summaries (round4 §6), where it keeps them: a pass reads them, a preparation replaces them. */
  prepared?: { read(): PreparedSet | null; write(set: PreparedSet): void }
}

/**
 * A summarizer that also asks for the session's title when `wanted`, in the same call (never an
 * extra one), and keeps the title it gets for the pass to write once the pass is written.
 */
function titling(summarizer: Summarizer | null, wanted: boolean): { summarizer: Summarizer | null; title: () => string | null } {
  let title: string | null = null
  if (!summarizer || !wanted) return { summarizer, title: () => null }
  return {
    summarizer: {
      ...(summarizer.inputTokens === undefined ? {} : { inputTokens: summarizer.inputTokens }),
      ...(summarizer.quotes === undefined ? {} : { quotes: summarizer.quotes }),
      async summarize(request) {
        const outcome = await summarizer.summarize({ ...request, title: true })
        if (outcome.kind === 'summary' && outcome.title) title = outcome.title
        return outcome
      },
    },
    title: () => title,
  }
}

/** A strategy as stored, as the core takes it: with the summarizer made for it. */
const coreStrategy = <S extends Summarizer | null>(spec: StrategySpec, summarizer: S) => ({
  window: spec.window,
  summarizer,
  ...(spec.clearToolResults ? { clearToolResults: spec.clearToolResults } : {}),
})

/** One pass as the service asks for it: a strategy as stored (its summarizer as options, not a model). */
export interface PassRequest {
  /** Default `always`. */
  trigger?: Trigger
  strategy: StrategySpec
  /** A user message about to be sent: it counts as the newest turn (see the core's `compact`). */
  pending?: readonly MessageSkeleton[]
  /** The model the pass fits for (its prompt budget, the session's calibration): what `contextFraction` is a fraction of. */
  model: ModelFit
  /** Plan only: nothing written, no summarizer called (a summarizer must still be possible). */
  dryRun?: boolean
  /** The version the caller saw: at any other, a 409 `version_conflict` and nothing written. */
  expectedVersion?: number | undefined
  /** Told what the summary call reported (the user's daily token quota). */
  spend?: ((usage: Usage | null) => Promise<void>) | undefined
  /** A pass inside the newest turn down to this view budget (the fit check's last resort before a 413). */
  inTurn?: { tokenBudget: number; summaryReserve?: number }
}

/** Runs compaction passes on a session's store, with a model-backed summarizer when a strategy asks for one. */
export interface Compactor {
  /**
   * Runs one pass. A summarizer with no model configured is a 503; a summarizer that fails at the
   * upstream is a 502 and nothing is written (logged once, here).
   */
  run(store: PassSession, session: SessionInfo, request: PassRequest): Promise<CompactionResult>
  /** Whether the pass's trigger fires on the view now (nothing written, no model asked). */
  due(store: SessionStore, request: Pick<PassRequest, 'trigger' | 'model'>): Promise<boolean>
  /**
   * Prepares the summaries the policy's pass would want (round4 §6) once the view has passed its
   * mark, topped up from those prepared before: whether new ones were kept. Nothing is written
   * to the log; the summary call counts in usage, used or not. A failure is thrown (nothing kept).
   */
  prepare(store: PassSession, session: SessionInfo, request: PrepareRequest): Promise<boolean>
}

/** A policy's preparation, as a turn asks for it after its answer. */
export interface PrepareRequest {
  trigger?: Trigger
  strategy: StrategySpec
  model: ModelFit
  /** The share of the trigger's tokens the view must have passed (the policy's `prepare.at`). */
  at: number
  /** Whether the turn ended, so the next request may bring a new message (see the core's `prepareSummaries`). */
  nextMessage: boolean
  spend?: ((usage: Usage | null) => Promise<void>) | undefined
}

/** Where a policy's prepared summaries start, when its `prepare` gives no `at`: 80% of its trigger's tokens. */
export const PREPARE_AT = 0.8

/** The share a policy prepares its summaries at, or null when it prepares none (`prepare: false`, or no summarizer). */
export const preparesAt = (policy: Policy): number | null =>
  policy.prepare === false || !policy.strategy.summarizer ? null : (policy.prepare?.at ?? PREPARE_AT)

export interface CompactorOptions {
  /** The deployment's variables: its models are read from them when a pass first needs a summarizer. */
  env: Env
  estimator: TokenEstimator
}

/** The model a pass outside a turn fits for: the configured chat model's budget, the session's calibration ratio. */
export const chatModelFit = (env: Env, ratio: number): ModelFit => ({
  promptBudget: chatModelBudget(modelSettings(env)).promptTokens,
  ratio,
})

/**
 * The compaction use case: the core's `compact()` with the service's summarizer, ids, clock and
 * logs, and upstream failures in the contract's words.
 *
 * @example
 * const compaction = compactor({ env, estimator: defaultEstimator })
 * const result = await compaction.run(store, { id: 'chat-1', metadata: {} }, { strategy: { window: { lastTurns: 8 } } })
 */
export function compactor(options: CompactorOptions): Compactor {
  const summarizerFor = (
    spec: StrategySpec['summarizer'],
    spend: PassRequest['spend'],
    store: PassSession,
    _session: SessionInfo,
  ): Summarizer | null => {
    if (!spec) return null
    const models = modelSettings(options.env)
    if (!models.model) throw new ServiceError('not_configured', `summaries need a model; ${NOT_CONFIGURED}`)
    if (models.problem) throw new ServiceError('not_configured', models.problem)
    const modelName = summaryModelOf(spec)
    return modelSummarizer({
      model: models.model,
      modelName,
      maxTokens: models.summaryTokens,
      contextTokens: models.contextTokensOf(modelName),
      instructions: spec.instructions,
      overlapSize: spec.overlapSize,
      systemPrompt: spec.systemPrompt,
      shadowPrompt: spec.shadowPrompt,
      // What a summary spent counts, whatever the pass then writes.
      onUsage: async (usage) => {
        await spend?.(usage)
        await store.spent(modelName, usage, 'summary')
      },
    })
  }

  const summaryModelOf = (spec: NonNullable<StrategySpec['summarizer']>) => spec.model ?? modelSettings(options.env).summaryModel
  /** A summarizer's options as a key: a prepared summary serves only passes of the summarizer that wrote it. */
  const keyOf = (spec: NonNullable<StrategySpec['summarizer']>) => JSON.stringify({ ...spec, model: summaryModelOf(spec) })
  /** The session's prepared summaries, when this summarizer wrote them. */
  const preparedFor = (store: PassSession, spec: StrategySpec['summarizer']): StoredPrepared[] => {
    if (!spec || !store.prepared) return []
    const stored = store.prepared.read()
    return stored?.summarizer === keyOf(spec) ? stored.summaries : []
  }

  return {
    async prepare(store, session, request) {
      const spec = request.strategy.summarizer
      if (!spec || !store.prepared) return false
      const { view, pins } = await store.readView()
      if (!pastMark(analyzeColumns(view, pins).tokens, request.trigger, request.model, request.at)) return false
      const { summarizer } = titling(summarizerFor(spec, request.spend, store, session), store.titleWanted?.() ?? false)
      const prepared = await prepareSummaries(
        {
          strategy: coreStrategy(request.strategy, summarizer!),
          session,
          model: request.model,
          previous: preparedFor(store, spec),
          nextMessage: request.nextMessage,
        },
        { store, estimator: options.estimator },
      ).catch((error: unknown) => {
        throw toServiceError(error)
      })
      if (!prepared) return false
      const preparedAt = new Date().toISOString()
      const stored = (summary: PreparedSummary | StoredPrepared): StoredPrepared =>
        'tokens' in summary
          ? summary
          : { ...summary, tokens: summary.messages.reduce((sum, m) => sum + options.estimator.count(m.content), 0), preparedAt }
      store.prepared.write({ summarizer: keyOf(spec), summaries: prepared.map(stored) })
      return true
    },
    async due(store, request) {
      const { view, pins } = await store.readView()
      return passDue(view, request.trigger, request.model, analyzeColumns(view, pins))
    },
    async run(store: PassSession, session: SessionInfo, request: PassRequest) {
      const wanted = !request.dryRun && (store.titleWanted?.() ?? false)
      const { summarizer, title } = titling(summarizerFor(request.strategy.summarizer, request.spend, store, session), wanted)
      // A pass inside the newest turn never takes one: it is not read.
      const prepared = request.dryRun || request.inTurn ? [] : preparedFor(store, request.strategy.summarizer)
      // Told, never in the way: the pass's own error is what its caller hears.
      const failed = (code: string, message: string) =>
        store
          .notify([newNotice('compaction.failed', session.id, { error: { code, message } })])
          .catch((error: unknown) => log.error('recording a failed pass failed', { session: session.id, error: String(error) }))
      try {
        const result = await compact(
          {
            trigger: request.trigger,
            strategy: {
              ...coreStrategy(request.strategy, summarizer),
              prepared,
              ...(request.inTurn ? { inTurn: request.inTurn } : {}),
            },
            session,
            pending: request.pending,
            model: request.model,
            dryRun: request.dryRun,
            ...(request.expectedVersion === undefined ? {} : { expectedVersion: request.expectedVersion }),
          },
          {
            store,
            estimator: options.estimator,
            newId: newEventId,
            now: () => new Date().toISOString(),
            // A blank summary: the core's one WARN for it.
            warn: (message, data) => log.warn(message, data),
          },
        )
        if (result.reason === 'summarizer_failed') await failed('summarizer_failed', 'the summarizer answered no summary')
        // The first summarizing pass that is written names the session (a prepared summary's title, when it used one).
        const named =
          title() ??
          (result.boundary?.boundary.prepared && wanted ? (prepared.find((summary) => summary.title)?.title ?? null) : null)
        if (named !== null && !result.unchanged) store.titled?.(named)
        return result
      } catch (error) {
        if (error instanceof UpstreamError) {
          log.warn('summarizer failed; nothing was written', {
            session: session.id,
            failure: error.failure,
            detail: error.message,
          })
          const wire = toServiceError(error)
          await failed(wire instanceof ServiceError ? wire.code : 'upstream_error', error.message)
        }
        throw toServiceError(error)
      }
    },
  }
}
