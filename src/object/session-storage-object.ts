import { DurableObject } from 'cloudflare:workers'
import { type Compactor, chatModelFit, compactor } from '../compaction'
import { type Outcome, toOutcome, unwrap } from '../contract/errors'
import type {
  CompactInput,
  ContextJson,
  CreateSessionInput,
  EventInput,
  ExportFormat,
  ForkInput,
  PatchSessionInput,
  PinsInput,
  PinsJson,
  RewindInput,
  RewindJson,
  SessionJson,
  UndoInput,
  UndoJson,
} from '../contract/schemas'
import { secondsSetting } from '../contract/seconds-setting'
import type { SessionAddress } from '../contract/session-address'
import { defaultEstimator, type TokenEstimator } from '../core'
import { jsonAnswer } from '../json-stream'
import { limitsOf } from '../rate-limits'
import type { ViewFormat } from '../store/session/answers'
import type { SearchQuery } from '../store/session/search-answers'
import { sessionJson } from '../store/session/session-row'
import { type AppendResult, type ForkSource, StoredSession } from '../store/session/stored-session'
import { sessionDirectory, sessionStub } from './address'
import { BackgroundPass } from './background-pass'
import { contextReport } from './context-report'
import { LiveHub } from './live-hub'
import { userTurnLimiter } from './turn-limiter'
import { TurnRunner } from './turn-runner'

/** JSON a live subscriber catches up with per connection: a longer backlog takes more. */
const LIVE_BACKLOG_BYTES = 1024 * 1024

/** A JSON answer generated from storage: its text when small, else bytes streamed as they are read (it may be larger than an RPC value may be: 32 MiB). */
export type JsonBody = string | ReadableStream<Uint8Array>

/**
 * A session's storage side (see {@link SessionObject}, which adds the turns and the doors): its
 * event log in this object's SQLite storage, the reads and the writes that are not a model turn.
 */
export abstract class SessionStorageObject extends DurableObject<Env> {
  /** The token estimator of every session: each event is estimated once, when it is written. */
  static readonly estimator: TokenEstimator = defaultEstimator

  protected readonly stored: StoredSession
  protected readonly compaction: Compactor
  protected readonly runner: TurnRunner
  protected readonly passes: BackgroundPass
  protected readonly estimator: TokenEstimator
  protected readonly live: LiveHub

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    // A subclass may count estimates (the benchmark does) by giving its own static estimator.
    const estimator = (new.target as typeof SessionStorageObject).estimator
    this.estimator = estimator
    const idleTtl = () => secondsSetting('SESSION_IDLE_TTL_SECONDS', env.SESSION_IDLE_TTL_SECONDS, 0)
    this.live = new LiveHub(ctx)
    const live = this.live
    this.stored = new StoredSession(ctx.storage, sessionDirectory(env), estimator, idleTtl, {
      watched: () => live.watched,
      written: (events) => live.events(events),
      ended: () => live.closeAll('the session ended'),
    })
    this.compaction = compactor({ env, estimator })
    this.passes = new BackgroundPass((work) => ctx.waitUntil(work))
    this.runner = new TurnRunner({ env, compactor: this.compaction, estimator, passes: this.passes, live })
  }

  /** Creates the session; 409 when it exists. */
  create(address: SessionAddress, input: CreateSessionInput): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.stored.create(address, input)))
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
      await this.stored.end.destroy(await this.stored.existing())
      return null
    })
  }

  /**
   * `GET /stream` with `Upgrade: websocket` (the Worker's live subscription): the events after
   * the seq `after` (a part at a time: see `CATCHING_UP`; `after` -1: none), then each event as it
   * is written and each piece of a reply in progress. 404 when the session does not exist.
   */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== '/stream' || request.headers.get('Upgrade') !== 'websocket') return new Response(null, { status: 404 })
    const record = await this.stored.find()
    if (!record) return new Response(null, { status: 404 })
    const after = Math.min(Number(url.searchParams.get('after') ?? -1), record.version)
    const backlog = after < 0 ? [] : [...this.stored.answers.eventsAfter(record, after, LIVE_BACKLOG_BYTES)]
    return this.live.subscribe(backlog, (backlog.at(-1)?.seq ?? after) < record.version && after >= 0)
  }

  /** A subscriber went away: its end of the socket is closed too. */
  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    try {
      socket.close([1005, 1006, 1015].includes(code) ? 1000 : code, reason)
    } catch {
      // Closed already.
    }
  }

  /** Appends events all together or not at all, creating the session when it does not exist. */
  append(address: SessionAddress, inputs: EventInput[], expectedVersion?: number): Promise<Outcome<AppendResult>> {
    return toOutcome(() => this.stored.appendInputs(address, inputs, expectedVersion))
  }

  /** A page of the log, COMPACTION events included, from `after` on (see `LIMITS.eventsPage`). */
  readLog(after: number, limit: number): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.logPage(await this.stored.existing(), after, limit)))
  }

  /** An export of the session (see `SessionAnswers.exportOf`), streamed when large. */
  exportSession(format: ExportFormat): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.exportOf(await this.stored.existing(), format)))
  }

  /** The view: what the model is shown. */
  readView(format: ViewFormat = 'events'): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.viewOf(await this.stored.existing(), format)))
  }

  /** A page of search hits over every event of the session, covered or not (see `SessionAnswers.search`). */
  search(query: SearchQuery): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      const answer = this.stored.answers.search(query)
      return jsonAnswer(answer(await this.stored.existing()))
    })
  }

  /** A page of the session's compactions, newest first, before the seq `before`. */
  readCompactions(before: number, limit: number): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => jsonAnswer(this.stored.answers.compactions(await this.stored.existing(), before, limit)))
  }

  /** Pins and unpins messages (one PINS event, see `StoredSession.pin`); waits for a running turn. */
  pin(input: PinsInput): Promise<Outcome<PinsJson>> {
    return toOutcome(() => this.runner.exclusive(() => this.stored.pin(input)))
  }

  /** Undoes the newest pass (see `StoredSession.undo`); waits for a running turn, like a rewind. */
  undo(passId: string, input: UndoInput): Promise<Outcome<UndoJson>> {
    return toOutcome(() => this.runner.exclusive(() => this.stored.undo(passId, input)))
  }

  /** A page of the branches rewinds abandoned, newest first, before the seq `before`. */
  readBranches(before: number, limit: number): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      return jsonAnswer(this.stored.answers.branches(await this.stored.existing(), before, limit))
    })
  }

  /** What the session holds, what the model would see of it, and what compaction did: read-only, O(view). */
  context(): Promise<Outcome<ContextJson>> {
    return toOutcome(async () =>
      contextReport(this.stored.answers.facts(await this.stored.existing()), this.env, {
        compacting: this.passes.compacting,
        queued: this.runner.waiting,
      }),
    )
  }

  /**
   * One compaction pass: the trigger (default `always`), the given strategy or the session's
   * policy strategy, or `lastEvents(20)` without a summarizer. A summarizer error is a 502.
   * A summary's reported tokens count toward the user's daily quota (TOKEN_QUOTA_DAILY), as a turn's do.
   */
  compact(request: CompactInput): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      const session = await this.stored.openExisting()
      const record = session.record()!
      const { tokensPerDay } = limitsOf(this.env)
      const limiter = userTurnLimiter(this.env, record.userId, { turnsPerMinute: 0, tokensPerDay, maxQueuedTurns: 0 })
      const result = await this.compaction.run(session, session.info(), {
        trigger: request.trigger,
        strategy: request.strategy ?? record.policy?.strategy ?? {},
        // Outside a turn the budget is the configured chat model's.
        model: chatModelFit(this.env, record.calibration.ratio),
        dryRun: request.dryRun,
        expectedVersion: request.expectedVersion,
        spend: limiter?.spend,
      })
      // Streamed when large: a written pass is answered whatever the size of what it covered.
      return jsonAnswer(this.stored.answers.compaction(result))
    })
  }

  /**
   * Forks this session into `target` (the same user's): the view as of `at` (else the view now)
   * copied as the new session's log — same ids, timestamps, summaries, pending calls — with the
   * metadata (the input's, else this one's), policy and calibration. This session is unchanged.
   */
  fork(target: SessionAddress, input: Omit<ForkInput, 'id'>): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => {
      const source = await this.stored.forkSource(input.at, input.position ?? 'at')
      const fork = {
        ...source,
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        ...(input.ttlSeconds !== undefined ? { ttlSeconds: input.ttlSeconds } : {}),
      }
      // The fork's own object writes it (typed here: the RPC stub's types lose `unknown` members).
      const forked = sessionStub(this.env, target.userId, target.sessionId) as unknown as Pick<SessionStorageObject, 'createFork'>
      return unwrap(await forked.createFork(target, fork))
    })
  }

  /** Creates this session as a fork of another (see {@link fork}); 409 when it exists. */
  createFork(address: SessionAddress, fork: ForkSource & { ttlSeconds?: number }): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.stored.createFork(address, fork)))
  }

  /** Takes the view back to a point (one REWIND, or nothing when it would not change); waits for a running turn. */
  rewind(input: RewindInput): Promise<Outcome<RewindJson>> {
    return toOutcome(() => this.runner.exclusive(() => this.stored.rewind(input)))
  }

  /** Erases this incarnation of the session, if it is the one created then (its user erased all): absent at once, wiped soon. */
  erase(createdAt: string): Promise<Outcome<null>> {
    return toOutcome(async () => {
      await this.stored.end.erase(createdAt)
      return null
    })
  }

  /** Hands the outbox over to the user's index object, and deletes the session once it has expired; safe to run twice. */
  override async alarm(): Promise<void> {
    await this.stored.end.alarm()
  }
}
