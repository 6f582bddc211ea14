import type { Compactor } from '../compaction'
import { ServiceError } from '../contract/errors'
import type { TokenEstimator } from '../core'
import { log } from '../log'
import { modelSettings } from '../models/config'
import type { TurnLimiter } from '../turns/limiter'
import { TurnQueue } from '../turns/queue'
import type { TurnDeps, TurnSession } from '../turns/session'
import { frameWriter } from './frames'

export interface TurnRunnerOptions {
  /** The deployment's variables: its models and COMPACTION_POLICY. */
  env: Env
  compactor: Compactor
  estimator: TokenEstimator
}

/** How one run is answered and limited. */
export interface RunSettings {
  /** Whether deltas and tool calls are sent as frames as they come (else only the result). */
  stream: boolean
  /** The user's limits, when any are on. */
  limiter?: TurnLimiter | undefined
}

/**
 * The turns of one session object: each use case (a `/turns` turn, a door's request) runs after
 * the ones before it and is answered at once as a stream of frames — deltas, then one `done` or
 * `error`. A run goes on to its end even if nobody reads, so a reply the model finished is always
 * stored.
 *
 * @example
 * const runner = new TurnRunner({ env, compactor, estimator })
 * return runner.run(session, { stream: true }, (deps) => runTurn(input, deps), (result) => answers.turn(result))
 */
export class TurnRunner {
  private readonly queue = new TurnQueue()

  constructor(private readonly options: TurnRunnerOptions) {}

  /** Runs `use` after the session's runs before it, answering its frames; `answer` writes its result as JSON. */
  run<L, R>(
    session: TurnSession<L>,
    settings: RunSettings,
    use: (deps: TurnDeps<L>) => Promise<R>,
    answer: (result: R) => Iterable<string>,
  ): ReadableStream<Uint8Array> {
    const frames = frameWriter()
    const { stream, limiter } = settings
    const run = () =>
      this.queue.run((written) =>
        use({
          session,
          models: modelSettings(this.options.env),
          compactor: this.options.compactor,
          estimator: this.options.estimator,
          deploymentPolicy: this.options.env.COMPACTION_POLICY,
          onDelta: stream ? (text) => frames.send({ type: 'delta', text }) : undefined,
          onToolCall: stream ? (call) => frames.send({ type: 'tool_call', call }) : undefined,
          written,
          limiter,
        }),
      )
    const failed = (error: unknown) => {
      if (error instanceof ServiceError) frames.send({ type: 'error', error: error.wire })
      else {
        log.error('turn failed', { error: String(error), stack: (error as Error)?.stack })
        frames.send({ type: 'error', error: { code: 'internal', message: 'the turn failed unexpectedly' } })
      }
      frames.close()
    }
    // One run too many waiting on this session is refused before it queues (checked and queued at once).
    const full = limiter !== undefined && limiter.maxQueued > 0 && this.queue.waiting >= limiter.maxQueued
    const result = full ? limiter.queueFull().then((error) => Promise.reject(error)) : run()
    result.then((value) => frames.finish(answer(value)), failed)
    return frames.readable
  }
}
