import type { Compactor } from '../compaction'
import { ServiceError } from '../contract/errors'
import type { TurnInput } from '../contract/schemas'
import type { TokenEstimator } from '../core'
import { type FrontDoorAnswer, type FrontDoorInput, frontDoorAnswer, frontDoorTurn } from '../front-door'
import { log } from '../log'
import { modelSettings } from '../models/config'
import { frameWriter } from './frames'
import type { TurnGate } from './gate'
import { TurnQueue } from './queue'
import { runTurn, type TurnDeps } from './run-turn'
import type { TurnSession } from './session'

export type { TurnGate } from './gate'
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
  stream<L>(session: TurnSession<L>, input: TurnInput, gate?: TurnGate): ReadableStream<Uint8Array>
  /** The same for a chat-completions request (the front door); `done` carries a {@link FrontDoorAnswer}. */
  chatCompletion<L>(session: TurnSession<L>, input: FrontDoorInput, gate?: TurnGate): ReadableStream<Uint8Array>
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
  /** Runs a use case after the session's turns before it, answering its frames; `answer` writes its result. */
  function framed<L, R>(
    session: TurnSession<L>,
    stream: boolean,
    gate: TurnGate | undefined,
    use: (deps: TurnDeps<L>) => Promise<R>,
    answer: (result: R) => Iterable<string>,
  ): ReadableStream<Uint8Array> {
    const frames = frameWriter()
    const run = () =>
      queue.run((written) =>
        use({
          session,
          models: modelSettings(options.env),
          compactor: options.compactor,
          estimator: options.estimator,
          deploymentPolicy: options.env.COMPACTION_POLICY,
          onDelta: stream ? (text) => frames.send({ type: 'delta', text }) : undefined,
          onToolCall: stream ? (call) => frames.send({ type: 'tool_call', call }) : undefined,
          written,
          gate,
        }),
      )
    // One turn too many waiting on this session is refused before it queues (checked and queued at once).
    const full = gate !== undefined && gate.maxQueued > 0 && queue.waiting >= gate.maxQueued
    ;(full ? gate.queueFull().then((error) => Promise.reject(error)) : run()).then(
      (result) => frames.finish(answer(result)),
      (error: unknown) => {
        if (error instanceof ServiceError) frames.send({ type: 'error', error: error.wire })
        else {
          log.error('turn failed', { error: String(error), stack: (error as Error)?.stack })
          frames.send({ type: 'error', error: { code: 'internal', message: 'the turn failed unexpectedly' } })
        }
        frames.close()
      },
    )
    return frames.readable
  }
  return {
    stream: (session, input, gate) =>
      framed(
        session,
        input.stream === true,
        gate,
        (deps) => runTurn(input, deps),
        (result) => session.resultJson(result),
      ),
    chatCompletion: (session, input, gate) =>
      framed(
        session,
        input.request.stream === true,
        gate,
        (deps) => frontDoorTurn(input, deps),
        (result) => [JSON.stringify(frontDoorAnswer(result))],
      ),
  }
}
