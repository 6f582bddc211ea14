import type { Compactor } from '../compaction'
import { backgroundMode, runsInBackground } from '../compaction/policy'
import { ERROR_STATUS, type ErrorBody, serviceErrorOf } from '../contract/errors'
import type { TokenEstimator } from '../core'
import { log } from '../log'
import { modelSettings } from '../models/config'
import type { TurnLimiter } from '../rate-limits'
import { TurnQueue } from '../turns/queue'
import type { PassScheduler, TurnDeps, TurnSession } from '../turns/session'
import type { BackgroundPass } from './background-pass'
import { frameWriter } from './frames'
import type { LiveHub } from './live-hub'

export interface TurnRunnerOptions {
  /** The deployment's variables: its models, COMPACTION_POLICY and COMPACTION_BACKGROUND. */
  env: Env
  compactor: Compactor
  estimator: TokenEstimator
  /** The session's background pass. */
  passes: BackgroundPass
  /** The session's preparation of a summary ahead of its pass (one at a time, apart from the passes). */
  preparing: BackgroundPass
  /** The session's live subscribers: they see every reply's pieces as they come. */
  live: Pick<LiveHub, 'followed' | 'delta' | 'ended'>
}

/** How one run is answered and limited. */
export interface RunSettings {
  /** Whether deltas and tool calls are sent as frames as they come (else only the result). */
  stream: boolean
  /** A door's request (its policy pass runs in the background by default), or a `/turns` turn. */
  door: boolean
  /** The user's limits (none when every limit is off); read when the run is asked for, a misconfigured one being its error. */
  limiter: () => TurnLimiter | undefined
  /** Whether the run waits for the session's runs before it (default); one that uses no storage need not. */
  queued?: boolean
  /** Told, before the answer says so, of a run that failed at the model or the service (not a refused request). */
  onFailed?: (error: ErrorBody) => Promise<void>
  /** What `recall_history` with `scope: "all_sessions"` answers (see `TurnDeps`). */
  recallAcross?: TurnDeps['recallAcross']
  /** The user's memory store, for a request that offers the memory tool (see `TurnDeps.memory`). */
  memory?: TurnDeps['memory']
  /** The prompt cache key a model call is sent under when its request names none (see `TurnDeps.promptCacheKey`). */
  promptCacheKey?: string
}

/** Failures a run is told of (`turn.failed`): the model's or the service's, and a prompt that cannot fit. */
const isTurnFailure = (error: ErrorBody) => ERROR_STATUS[error.code] >= 500 || error.code === 'context_overflow'

/**
 * The turns of one session object: each use case (a `/turns` turn, a door's request) runs after
 * the ones before it and is answered at once as a stream of frames — deltas, then one `done` or
 * `error`. A run goes on to its end even if nobody reads, so a reply the model finished is always
 * stored.
 *
 * @example
 * const runner = new TurnRunner({ env, compactor, estimator })
 * return runner.run(() => stored.open(address), { stream: true, limiter }, (deps) => runTurn(input, deps), answers.turn)
 */
export class TurnRunner {
  private readonly queue = new TurnQueue()

  constructor(private readonly options: TurnRunnerOptions) {}

  /** How many runs wait behind the one running now. */
  get waiting(): number {
    return this.queue.waiting
  }

  /** Runs `work` after the session's runs before it (a turn, or another exclusive work), nothing else running meanwhile. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(() => work())
  }

  /**
   * Runs `use` after the session's runs before it, on the session as `open` finds it when the run
   * starts, answering its frames; `answer` writes its result as JSON.
   */
  run<R>(
    open: () => Promise<TurnSession>,
    settings: RunSettings,
    use: (deps: TurnDeps) => Promise<R>,
    answer: (result: R) => Iterable<string>,
  ): ReadableStream<Uint8Array> {
    const frames = frameWriter()
    const { stream } = settings
    const mode = backgroundMode(this.options.env.COMPACTION_BACKGROUND)
    const { passes, preparing, live } = this.options
    /** The turn whose stored reply this run is writing, as live subscribers know it. */
    let liveTurn: string | null = null
    const scheduler: PassScheduler = {
      inBackground: (policy) => runsInBackground(policy, mode, settings.door),
      start: (pass) => passes.start(pass),
      running: () => passes.compacting,
      settled: () => passes.settled(),
      prepare: (work) => preparing.startOrQueue(work),
    }
    const deps = (session: TurnSession, limiter: TurnLimiter | undefined, written: () => void): TurnDeps => ({
      session,
      models: modelSettings(this.options.env),
      compactor: this.options.compactor,
      estimator: this.options.estimator,
      deploymentPolicy: this.options.env.COMPACTION_POLICY,
      onDelta: (text) => {
        if (stream) frames.send({ type: 'delta', text })
        if (liveTurn !== null) live.delta(liveTurn, text)
      },
      onToolCall: stream ? (call) => frames.send({ type: 'tool_call', call }) : undefined,
      onReasoning: stream ? (block) => frames.send({ type: 'reasoning', block }) : undefined,
      onCompaction: stream ? (replyId, block) => frames.send({ type: 'compaction', replyId, block }) : undefined,
      onRewound: (abandoned) => frames.send({ type: 'rewound', abandoned }),
      onReply: (id, stored, turnId) => {
        liveTurn = stored ? (turnId ?? id) : null
        frames.send({ type: 'reply', id, stored })
      },
      watched: () => live.followed,
      // A door's answer keeps its status until it is known: only a streamed `/turns` turn says it waits.
      onCompacting: stream && !settings.door ? () => frames.send({ type: 'compacting' }) : undefined,
      written: () => {
        written()
        // The reply is stored: a subscriber attaching now gets it as an event, not as text in progress.
        if (liveTurn !== null) live.ended(liveTurn)
      },
      limiter,
      passes: scheduler,
      ...(settings.recallAcross ? { recallAcross: settings.recallAcross } : {}),
      ...(settings.memory ? { memory: settings.memory } : {}),
      ...(settings.promptCacheKey ? { promptCacheKey: settings.promptCacheKey } : {}),
    })
    const failed = async (error: unknown) => {
      const known = serviceErrorOf(error)
      if (!known) log.error('turn failed', { error: String(error), stack: (error as Error)?.stack })
      const wire = known ? known.wire : { code: 'internal' as const, message: 'the turn failed unexpectedly' }
      if (isTurnFailure(wire))
        await settings
          .onFailed?.({ code: wire.code, message: wire.message })
          .catch((reason: unknown) => log.error('recording a failed turn failed', { error: String(reason) }))
      frames.send({ type: 'error', error: wire })
      frames.close()
    }
    const result = (async () => {
      const limiter = settings.limiter()
      // One run too many waiting on this session is refused before it queues (checked and queued
      // at once: nothing is awaited in between).
      if (limiter && limiter.maxQueued > 0 && this.queue.waiting >= limiter.maxQueued) throw await limiter.queueFull()
      if (settings.queued === false) return use(deps(await open(), limiter, () => {}))
      return this.queue.run(async (written) => use(deps(await open(), limiter, written)))
    })()
    const ended = () => {
      if (liveTurn !== null) live.ended(liveTurn)
    }
    result.then(
      (value) => {
        ended()
        frames.finish(answer(value))
      },
      (error) => {
        ended()
        return failed(error)
      },
    )
    return frames.readable
  }
}
