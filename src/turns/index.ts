import type { Compactor } from '../compaction'
import { ServiceError } from '../contract/errors'
import type { TurnInput } from '../contract/schemas'
import type { TokenEstimator } from '../core'
import { log } from '../log'
import { modelSettings } from '../models/config'
import { frameWriter } from './frames'
import { TurnQueue } from './queue'
import { runTurn } from './run-turn'
import type { TurnSession } from './session'

export type { ContextReport, PromptState, TurnResult, TurnSession } from './session'

export interface ChatTurnsOptions {
  /** The deployment's variables: its models and COMPACTION_POLICY. */
  env: Env
  compactor: Compactor
  estimator: TokenEstimator
}

/** The chat turns of one session: run one at a time, each answered as a stream of frames. */
export interface ChatTurns {
  /**
   * Starts a turn (after the ones before it) and answers at once with its frames: deltas, then
   * one `done` or `error`. The turn runs to its end even if nobody reads, so a reply the model
   * finished is always stored.
   */
  stream<L>(session: TurnSession<L>, input: TurnInput): ReadableStream<Uint8Array>
}

/**
 * The chat-turn use case for one session object.
 *
 * @example
 * const turns = chatTurns({ env, compactor: compactor({ env, estimator }), estimator })
 * return turns.stream(storedSession, { content: 'Hello' })
 */
export function chatTurns(options: ChatTurnsOptions): ChatTurns {
  const queue = new TurnQueue()
  return {
    stream<L>(session: TurnSession<L>, input: TurnInput) {
      const frames = frameWriter()
      queue
        .run((written) =>
          runTurn(input, {
            session,
            models: modelSettings(options.env),
            compactor: options.compactor,
            estimator: options.estimator,
            deploymentPolicy: options.env.COMPACTION_POLICY,
            onDelta: (text) => frames.send({ type: 'delta', text }),
            onToolCall: (call) => frames.send({ type: 'tool_call', call }),
            written,
          }),
        )
        .then(
          (result) => frames.finish(session.resultJson(result)),
          (error: unknown) => {
            if (error instanceof ServiceError) frames.send({ type: 'error', error: error.body })
            else {
              log.error('turn failed', { error: String(error), stack: (error as Error)?.stack })
              frames.send({ type: 'error', error: { code: 'internal', message: 'the turn failed unexpectedly' } })
            }
            frames.close()
          },
        )
      return frames.readable
    },
  }
}
