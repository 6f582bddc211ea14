import { DurableObject } from 'cloudflare:workers'
import { type Compactor, chatModelFit, compactor } from '../compaction'
import { type Outcome, toOutcome } from '../contract/errors'
import type {
  CompactInput,
  ContextJson,
  CreateSessionInput,
  EventInput,
  PatchSessionInput,
  SessionJson,
  TurnInput,
} from '../contract/schemas'
import type { SessionAddress } from '../contract/session-address'
import { defaultEstimator, type TokenEstimator } from '../core'
import { type DoorInput, doorAnswer, doorTurn } from '../doors'
import { jsonAnswer } from '../json-stream'
import type { TurnLimits } from '../rate-limits'
import type { SearchQuery, ViewFormat } from '../store/session/answers'
import { sessionJson } from '../store/session/session-row'
import { type AppendResult, StoredSession } from '../store/session/stored-session'
import { runTurn } from '../turns/run-turn'
import type { TurnSession } from '../turns/session'
import { sessionDirectory } from './address'
import { contextReport } from './context-report'
import { userTurnLimiter } from './turn-limiter'
import { TurnRunner } from './turn-runner'

export type { AppendResult } from '../store/session/stored-session'

/** A JSON answer generated from storage: its text when small, else bytes streamed as they are read (it may be larger than an RPC value may be: 32 MiB). */
export type JsonBody = string | ReadableStream<Uint8Array>

/**
 * One chat session: its append-only event log in this object's SQLite storage, every append
 * serialized by the object (see {@link StoredSession}). Each HTTP request makes one RPC call to
 * one of the methods below; each answers an {@link Outcome}, since errors thrown across RPC lose
 * their type. Chat turns and compaction passes are use cases (`src/turns`, `src/compaction`)
 * that run here, on this object's storage, one turn at a time.
 */
export class SessionObject extends DurableObject<Env> {
  /** The token estimator of every session: each event is estimated once, when it is written. */
  static readonly estimator: TokenEstimator = defaultEstimator

  protected readonly stored: StoredSession
  private readonly compaction: Compactor
  private readonly runner: TurnRunner

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    // A subclass may count estimates (the benchmark does) by giving its own static estimator.
    const estimator = (new.target as typeof SessionObject).estimator
    this.stored = new StoredSession(ctx.storage, sessionDirectory(env), estimator)
    this.compaction = compactor({ env, estimator })
    this.runner = new TurnRunner({ env, compactor: this.compaction, estimator })
  }

  /** Creates the session; 409 when it exists. */
  create(address: SessionAddress, input: CreateSessionInput): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.stored.addressedAs(address).create(input)))
  }

  get(): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.stored.existing()))
  }

  /** Changes metadata, ttl (counted from now) or policy. */
  patch(input: PatchSessionInput): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.stored.patch(input)))
  }

  /** Deletes the session and its whole log. */
  destroy(): Promise<Outcome<null>> {
    return toOutcome(async () => {
      await this.stored.destroy()
      return null
    })
  }

  /** Appends events all together or not at all, creating the session when it does not exist. */
  append(address: SessionAddress, inputs: EventInput[], expectedVersion?: number): Promise<Outcome<AppendResult>> {
    return toOutcome(() => this.stored.addressedAs(address).appendInputs(inputs, expectedVersion))
  }

  /** A page of the log, COMPACTION events included, from `after` on (see `LIMITS.eventsPage`). */
  readLog(after: number, limit: number): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.logPage(await this.stored.existing(), after, limit)))
  }

  /** The view: what the model is shown. */
  readView(format: ViewFormat = 'events'): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.viewOf(await this.stored.existing(), format)))
  }

  /** A page of search hits over every event of the session, covered or not (see `SessionAnswers.search`). */
  search(query: SearchQuery): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(await this.stored.answers.search(await this.stored.existing(), query)))
  }

  /** A page of the session's compactions, newest first, before the seq `before`. */
  readCompactions(before: number, limit: number): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      await this.stored.existing()
      return jsonAnswer(this.stored.answers.compactions(before, limit))
    })
  }

  /** What the session holds, what the model would see of it, and what compaction did: read-only, O(view). */
  context(): Promise<Outcome<ContextJson>> {
    return toOutcome(async () => contextReport(this.stored.answers.facts(await this.stored.existing()), this.env))
  }

  /**
   * One compaction pass: the trigger (default `always`), the given strategy or the session's
   * policy strategy, or `lastEvents(20)` without a summarizer. A summarizer error is a 502.
   * A summary's reported tokens count toward `tokensPerDay` (the user's quota; 0: off).
   */
  compact(request: CompactInput, tokensPerDay = 0): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      const record = await this.stored.existing()
      // A summary's tokens count toward the user's daily quota, as a turn's do.
      const limiter = userTurnLimiter(this.env, record.userId, { turnsPerMinute: 0, tokensPerDay, maxQueuedTurns: 0 })
      const strategy = request.strategy ?? record.policy?.strategy ?? {}
      // Outside a turn the budget is the configured chat model's.
      const model = chatModelFit(this.env, record.calibration.ratio)
      const result = await this.compaction.run(this.stored, this.stored.info(), {
        trigger: request.trigger,
        strategy,
        model,
        dryRun: request.dryRun,
        spend: limiter?.spend,
      })
      // Streamed when large: a written pass is answered whatever the size of what it covered.
      return jsonAnswer(this.stored.answers.compaction(result))
    })
  }

  /**
   * Runs a chat turn, creating the session when it does not exist. Answers at once with a stream
   * of frames (see `./frames`); the turn runs to the end even if the caller stops reading.
   */
  turn(address: SessionAddress, input: TurnInput, limits: TurnLimits): ReadableStream<Uint8Array> {
    const session: TurnSession<Int32Array> = this.stored.addressedAs(address)
    const settings = { stream: input.stream === true, limiter: userTurnLimiter(this.env, address.userId, limits) }
    return this.runner.run(
      session,
      settings,
      (deps) => runTurn(input, deps),
      (result) => this.stored.answers.turn(result),
    )
  }

  /**
   * A chat-completions request (the OpenAI-compatible front door), creating the session when it
   * does not exist; frames as for {@link turn}, `done` carrying a small answer (see `src/doors`).
   */
  chatCompletion(address: SessionAddress, input: DoorInput, limits: TurnLimits): ReadableStream<Uint8Array> {
    const session: TurnSession<Int32Array> = this.stored.addressedAs(address)
    const settings = { stream: input.request.stream === true, limiter: userTurnLimiter(this.env, address.userId, limits) }
    return this.runner.run(
      session,
      settings,
      (deps) => doorTurn(input, deps),
      (result) => [JSON.stringify(doorAnswer(result))],
    )
  }

  /** Deletes the session once it has expired; safe to run twice. */
  override async alarm(): Promise<void> {
    await this.stored.expire()
  }
}
