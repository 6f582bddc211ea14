import { DurableObject } from 'cloudflare:workers'
import { type Compactor, chatModelFit, compactor } from '../compaction'
import { requestedPass } from '../compaction/requested'
import type { BlobUpload } from '../contract/blob-upload'
import { type Outcome, toOutcome, unwrap } from '../contract/errors'
import { SIZE_LIMITS } from '../contract/limits'
import type {
  AppendInput,
  CompactInput,
  ContextJson,
  CreateSessionInput,
  ExportFormat,
  ForkInput,
  ImportLines,
  ImportResultJson,
  PatchSessionInput,
  PinsInput,
  PinsJson,
  RewindInput,
  RewindJson,
  SessionJson,
  TurnInput,
  UndoInput,
  UndoJson,
} from '../contract/schemas'
import { type AcrossSessions, acrossSessions } from '../contract/search-settings'
import { secondsSetting } from '../contract/seconds-setting'
import type { SessionAddress } from '../contract/session-address'
import {
  type ClientMessage,
  defaultEstimator,
  type MessageEvent,
  type RecallHit,
  type SessionEvent,
  type TokenEstimator,
} from '../core'
import {
  appendHistory,
  countPromptTokens,
  createsOf,
  type DoorRequest,
  doorCompaction,
  doorTurn,
  type PromptCount,
  type StoredDoorAnswer,
  storedDoorAnswer,
} from '../doors'
import { type ImportedHistory, importHistory } from '../doors/import-history'
import {
  type AppendResult,
  appendEvents,
  createFork,
  type ForkSource,
  forkInto,
  importJsonl,
  pin,
  rewind,
  undo,
} from '../history'
import { jsonAnswer } from '../json-stream'
import { limitsOf } from '../rate-limits'
import { DoorReads } from '../reads/door-reads'
import { SessionReads, type ViewFormat } from '../reads/session-reads'
import type { TranscriptPage, TranscriptQuery } from '../reads/transcript'
import { type NewSessionInput, sessionJson } from '../store/log/session-row'
import type { SearchQuery } from '../store/search/lineage-search'
import { SessionStorage } from '../store/session-storage'
import { runTurn } from '../turns/run-turn'
import { newNotice } from '../webhooks'
import type { SessionHits } from './across-sessions'
import { memoryStub, sessionDirectory, sessionStub } from './address'
import { BackgroundPass } from './background-pass'
import { contextReport } from './context-report'
import { type FrameBody, wholeWhenSmall } from './frames'
import { turnLimiterOf } from './limits'
import { LiveHub } from './live-hub'
import { SessionSearchPart } from './session-search'
import { type RunSettings, TurnRunner } from './turn-runner'
import { type RequestBlobs, requestBlobs, withKnownBlobs } from './uploads'

export type { AppendResult }

/** JSON a live subscriber catches up with per connection: a longer backlog takes more. */
const LIVE_BACKLOG_BYTES = 1024 * 1024

/** A JSON answer generated from storage: its text when small, else bytes streamed as they are read (it may be larger than an RPC value may be: 32 MiB). */
export type JsonBody = string | ReadableStream<Uint8Array>

/**
 * One chat session: its append-only event log in this object's SQLite storage (see
 * {@link SessionStorage}), every write serialized by the object. Each HTTP request makes one RPC
 * call to one of the methods below; each names the use case it runs — a turn (`src/turns`), a
 * door's request (`src/doors`), a pass (`src/compaction`), a history edit (`src/history`), a read
 * (`src/reads`) — and answers an {@link Outcome}, since errors thrown across RPC lose their type.
 * Writes other than a turn wait for the running turn.
 */
export class SessionObject extends DurableObject<Env> {
  /** The token estimator of every session: each event is estimated once, when it is written. */
  static readonly estimator: TokenEstimator = defaultEstimator
  /** The deployment's search across sessions (a subclass may say otherwise: the benchmark compares on and off). */
  static readonly acrossSessions: (env: Env, ctx: DurableObjectState) => AcrossSessions = acrossSessions

  private readonly storage: SessionStorage
  private readonly reads: SessionReads
  private readonly doorReads: DoorReads
  private readonly compaction: Compactor
  private readonly runner: TurnRunner
  private readonly passes: BackgroundPass
  private readonly preparing: BackgroundPass
  private readonly live: LiveHub
  private readonly searchPart: SessionSearchPart

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    // A subclass may count estimates (the benchmark does) by giving its own static estimator.
    const estimator = (new.target as typeof SessionObject).estimator
    const idleTtl = () => secondsSetting('SESSION_IDLE_TTL_SECONDS', env.SESSION_IDLE_TTL_SECONDS, 0)
    const live = new LiveHub(ctx)
    this.live = live
    this.searchPart = new SessionSearchPart(
      env,
      () => this.storage,
      () => this.reads,
      (work) => ctx.waitUntil(work),
      (settings) => (new.target as typeof SessionObject).acrossSessions(settings, ctx),
    )
    const listener = {
      watched: () => live.watched,
      written: (events: { seq: number; id: string; json: string }[]) => live.events(events),
      ended: () => live.closeAll('the session ended'),
    }
    this.storage = new SessionStorage(ctx.storage, sessionDirectory(env), estimator, idleTtl, listener, this.searchPart.port())
    this.reads = new SessionReads(this.storage)
    this.doorReads = new DoorReads(this.storage.parts, () => this.storage.find())
    this.compaction = compactor({ env, estimator })
    this.passes = new BackgroundPass((work) => ctx.waitUntil(work))
    this.preparing = new BackgroundPass((work) => ctx.waitUntil(work))
    const { passes, preparing } = this
    this.runner = new TurnRunner({ env, compactor: this.compaction, estimator, passes, preparing, live })
  }

  // ── the session ──────────────────────────────────────────────────────────────────────────

  /** Creates the session; 409 when it exists. */
  create(address: SessionAddress, input: CreateSessionInput): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.storage.create(address, input)))
  }

  get(): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.storage.existing()))
  }

  /** Changes metadata, ttl (counted from now) or policy. */
  patch(input: PatchSessionInput): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await this.storage.patch(input)))
  }

  /** Deletes the session and its whole log. */
  destroy(): Promise<Outcome<null>> {
    return toOutcome(async () => {
      await this.storage.end.destroy(await this.storage.existing())
      return null
    })
  }

  /** Erases this incarnation of the session, if it is the one created then (its user erased all): absent at once, wiped soon. */
  erase(createdAt: string): Promise<Outcome<null>> {
    return toOutcome(async () => {
      await this.storage.end.erase(createdAt)
      return null
    })
  }

  /** Hands the outbox over to the user's index object, and deletes the session once it has expired; safe to run twice. */
  override async alarm(): Promise<void> {
    await this.storage.end.alarm()
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────

  /** A page of the log, COMPACTION events included, from `after` on (see `SIZE_LIMITS.eventsPage`). */
  readLog(after: number, limit: number): Promise<Outcome<JsonBody>> {
    return this.read((record) => this.reads.logPage(record, after, limit))
  }

  /** The view: what the model is shown. */
  readView(format: ViewFormat = 'events'): Promise<Outcome<JsonBody>> {
    return this.read((record) => this.reads.viewOf(record, format))
  }

  /** An export of the session (see `SessionReads.exportOf`), streamed when large. */
  exportSession(format: ExportFormat): Promise<Outcome<JsonBody>> {
    return this.read((record) => this.reads.exportOf(record, format))
  }

  /** A page of the lineage around, before or after an event (the newest when none), marked as the view stands: MCP's `read_session`. */
  readTranscript(query: TranscriptQuery): Promise<Outcome<TranscriptPage>> {
    return toOutcome(async () => this.reads.transcript(await this.storage.existing(), query))
  }

  /** A message by its id, or a tool call's result by the call's id, whole (never an abandoned one): MCP's `recall` by id. */
  recallById(id: string): Promise<Outcome<RecallHit | null>> {
    return toOutcome(async () => (await this.storage.openExisting()).recallById(id))
  }

  /** A page of search hits over every event of the session, covered or not (see `SessionReads.search`). */
  search(query: SearchQuery): Promise<Outcome<JsonBody>> {
    return toOutcome(() => {
      // The query is checked before the session is looked up.
      const page = this.reads.search(query)
      return this.readJson(page)
    })
  }

  /**
   * The hits a search across sessions found here (`GET /v1/search`, recall across sessions), in
   * the order of `seqs`: null when this is not the incarnation searched (the session is gone, or
   * was made anew), so that a gone session's events are never returned.
   */
  hitsOf(createdAt: string, q: string, seqs: number[], withText = false): Promise<Outcome<SessionHits | null>> {
    return toOutcome(() => this.searchPart.hitsOf(createdAt, q, seqs.slice(0, SIZE_LIMITS.searchPage.max * 2), withText))
  }

  /** A page of the session's compactions, newest first, before the seq `before`. */
  readCompactions(before: number, limit: number): Promise<Outcome<JsonBody>> {
    return this.read((record) => this.reads.compactions(record, before, limit))
  }

  /** A page of the branches rewinds abandoned, newest first, before the seq `before`. */
  readBranches(before: number, limit: number): Promise<Outcome<JsonBody>> {
    return this.read((record) => this.reads.branches(record, before, limit))
  }

  /** What the session holds, what the model would see of it, and what compaction did: read-only, O(view). */
  context(): Promise<Outcome<ContextJson>> {
    return toOutcome(async () => {
      const facts = this.reads.facts(await this.storage.existing())
      return contextReport(facts, this.env, {
        compacting: this.passes.compacting,
        preparing: this.preparing.compacting,
        queued: this.runner.waiting,
      })
    })
  }

  /**
   * A blob's bytes as a stream read a chunk at a time, with its media type and size; null when the
   * session holds none by that name.
   */
  readBlob(ref: string): Promise<Outcome<{ mediaType: string; bytes: number; body: ReadableStream<Uint8Array> } | null>> {
    return toOutcome(async () => {
      await this.storage.existing()
      return this.storage.blobs.stream(ref)
    })
  }

  /** The session's message events with these ids (at most {@link SIZE_LIMITS.chatMessages}), as stored: what a door's item reference names. */
  messagesByIds(ids: string[]): Promise<Outcome<MessageEvent[]>> {
    return toOutcome(() => this.doorReads.messagesByIds(ids.slice(0, SIZE_LIMITS.chatMessages)))
  }

  /** A stored reply as a door answers it again, with the messages its request added (null: no such reply). */
  storedAnswer(replyId: string): Promise<Outcome<StoredDoorAnswer | null>> {
    return toOutcome(async () => storedDoorAnswer(await this.doorReads.stepOfReply(replyId)))
  }

  /** A page of the lineage's shown messages from the event `fromId` on (null: it is not on the lineage): a Conversations list. */
  readLineage(query: { order: 'asc' | 'desc'; fromId?: string; limit: number }) {
    return toOutcome(() => this.doorReads.lineageMessages(query))
  }

  /**
   * `GET /stream` with `Upgrade: websocket` (the Worker's live subscription): the events after
   * the seq `after` (a part at a time: see `CATCHING_UP`; `after` -1: none), then each event as it
   * is written and each piece of a reply in progress. 404 when the session does not exist.
   */
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== '/stream' || request.headers.get('Upgrade') !== 'websocket') return new Response(null, { status: 404 })
    const record = await this.storage.find()
    if (!record) return new Response(null, { status: 404 })
    const after = Math.min(Number(url.searchParams.get('after') ?? -1), record.version)
    const backlog = after < 0 ? [] : [...this.reads.eventsAfter(record, after, LIVE_BACKLOG_BYTES)]
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

  // ── history edits (src/history) ──────────────────────────────────────────────────────────

  /** Appends events all together or not at all, creating the session when it does not exist; `upload`: their images and documents. */
  append(
    address: SessionAddress,
    inputs: AppendInput[],
    expectedVersion?: number,
    upload?: BlobUpload | null,
  ): Promise<Outcome<AppendResult>> {
    return toOutcome(async () => {
      const { staged, known } = await requestBlobs(this.storage, upload)
      return appendEvents(this.storage, address, withKnownBlobs(inputs, known), expectedVersion, staged)
    })
  }

  /** An import after a running turn: a `jsonl` export's lines, or a history without ids (`importHistory`). */
  importSession(
    address: SessionAddress,
    input: { lines: ImportLines } | { history: ImportedHistory },
    upload?: BlobUpload | null,
  ) {
    return this.exclusive(async (): Promise<ImportResultJson> => {
      const { staged, known } = await requestBlobs(this.storage, upload)
      if ('lines' in input) return importJsonl(this.storage, address, withKnownBlobs(input.lines, known), staged)
      const written = await importHistory(withKnownBlobs(input.history, known), {
        session: await this.storage.open(address, undefined, staged),
        estimator: this.storage.estimator,
      })
      return { imported: written.length, skipped: 0, version: written.at(-1)!.seq }
    })
  }

  /** Takes the view back to a point (one REWIND, or nothing when it would not change); waits for a running turn. */
  rewind(input: RewindInput): Promise<Outcome<RewindJson>> {
    return this.exclusive(() => rewind(this.storage, input))
  }

  /** Undoes the newest pass (see `undo`); waits for a running turn, like a rewind. */
  undo(passId: string, input: UndoInput): Promise<Outcome<UndoJson>> {
    return this.exclusive(() => undo(this.storage, passId, input))
  }

  /** Pins and unpins messages (one PINS event, see `pin`); waits for a running turn. */
  pin(input: PinsInput): Promise<Outcome<PinsJson>> {
    return this.exclusive(() => pin(this.storage, input))
  }

  /** Forks this session into `target` (the same user's), whose own object writes it (see `forkInto`). */
  fork(target: SessionAddress, input: Omit<ForkInput, 'id'>): Promise<Outcome<SessionJson>> {
    // Typed here: the RPC stub's types lose `unknown` members.
    const forked = sessionStub(this.env, target.userId, target.sessionId) as unknown as Pick<SessionObject, 'createFork'>
    return toOutcome(() => forkInto(this.storage, input, async (fork) => unwrap(await forked.createFork(target, fork))))
  }

  /** Creates this session as a fork of another (see {@link fork}); 409 when it exists. */
  createFork(address: SessionAddress, fork: ForkSource & { ttlSeconds?: number }): Promise<Outcome<SessionJson>> {
    return toOutcome(async () => sessionJson(await createFork(this.storage, address, fork)))
  }

  /** Stores a door's messages as history (see `appendHistory`) after a running turn; the session must exist unless `creates`. */
  appendHistory(
    address: SessionAddress,
    input: { messages: ClientMessage[]; fields: string[]; creates?: NewSessionInput },
    upload?: BlobUpload | null,
  ): Promise<Outcome<SessionEvent[]>> {
    return this.exclusive(async () => {
      const { staged, known } = await requestBlobs(this.storage, upload)
      const session = input.creates
        ? await this.storage.open(address, input.creates, staged)
        : await this.storage.openExisting(staged)
      return appendHistory(withKnownBlobs(input.messages, known), input.fields, { session, estimator: this.storage.estimator })
    })
  }

  // ── turns, doors and passes ──────────────────────────────────────────────────────────────

  /**
   * Runs a chat turn, creating the session when it does not exist. Answers its frames (see
   * `./frames`): a streamed turn's at once, as a stream; a plain turn's whole when it ends, when
   * small. The turn runs to the end even if the caller stops reading.
   */
  async turn(address: SessionAddress, input: TurnInput, upload?: BlobUpload | null): Promise<FrameBody> {
    const blobs = this.requestBlobs(upload)
    const frames = this.runner.run(
      async () => this.storage.open(address, undefined, (await blobs).staged),
      this.runSettings(address, input.stream === true, false),
      async (deps) => runTurn(withKnownBlobs(input, (await blobs).known), deps),
      (result) => this.reads.turn(result),
    )
    return input.stream ? frames : wholeWhenSmall(frames)
  }

  /** A door's request (see `src/doors`), creating the session when absent; frames as for {@link turn}, `done` a small answer. */
  async door(address: SessionAddress, input: DoorRequest, upload?: BlobUpload | null): Promise<FrameBody> {
    const blobs = this.requestBlobs(upload)
    const frames = this.runner.run(
      async () => this.storage.open(address, createsOf(input), (await blobs).staged),
      // A passthrough neither reads nor writes the session: it waits for no turn.
      { ...this.runSettings(address, input.request.stream === true, true), queued: input.mode !== 'passthrough' },
      async (deps) => doorTurn(withKnownBlobs(input, (await blobs).known), deps, address.userId),
      (answer) => [JSON.stringify(answer)],
    )
    return input.request.stream ? frames : wholeWhenSmall(frames)
  }

  /** A Responses client's compaction (see `doorCompaction`); frames as for {@link door}, `done` carrying the capsule. */
  doorCompaction(address: SessionAddress, input: DoorRequest, upload?: BlobUpload | null): Promise<FrameBody> {
    const blobs = this.requestBlobs(upload)
    const frames = this.runner.run(
      async () => this.storage.open(address, createsOf(input), (await blobs).staged),
      this.runSettings(address, false, true),
      async (deps) => doorCompaction(withKnownBlobs(input, (await blobs).known), deps, address.userId),
      (result) => [JSON.stringify(result)],
    )
    return wholeWhenSmall(frames)
  }

  /** The tokens of the prompt a door request would send (see `countPromptTokens`): reads, never creates. */
  countTokens(
    address: SessionAddress,
    input: Pick<DoorRequest, 'messages' | 'shown' | 'request'>,
  ): Promise<Outcome<PromptCount>> {
    return toOutcome(async () =>
      countPromptTokens(input, {
        session: await this.storage.open(address),
        estimator: this.storage.estimator,
        compactor: this.compaction,
        // A clearing pass reads no budget; the deployment's stands for the request's model.
        promptBudget: chatModelFit(this.env, 1).promptBudget,
      }),
    )
  }

  /**
   * One compaction pass now (see `requestedPass`). Its summary's reported tokens count toward the
   * user's daily quota (TOKEN_QUOTA_DAILY), as a turn's do. Streamed when large: a written pass is
   * answered whatever the size of what it covered.
   */
  compact(request: CompactInput): Promise<Outcome<JsonBody>> {
    return toOutcome(async () => {
      const session = await this.storage.openExisting()
      const { tokensPerDay } = limitsOf(this.env)
      const limits = { turnsPerMinute: 0, tokensPerDay, maxQueuedTurns: 0 }
      const limiter = turnLimiterOf(this.env, session.record()!.userId, limits)
      const result = await requestedPass(this.compaction, session, request, this.env, limiter?.spend)
      return jsonAnswer(this.reads.compaction(result))
    })
  }

  // ── how methods run ──────────────────────────────────────────────────────────────────────

  /** A JSON answer read from the session as it is now; 404 when there is none. */
  private read(answer: (record: Awaited<ReturnType<SessionStorage['existing']>>) => Iterable<string>) {
    return toOutcome(() => this.readJson(answer))
  }

  private async readJson(answer: (record: Awaited<ReturnType<SessionStorage['existing']>>) => Iterable<string>) {
    return jsonAnswer(answer(await this.storage.existing()))
  }

  /** A request's images and documents, read as it arrives (its failure is the run's: see the runner's `open`). */
  private requestBlobs(upload: BlobUpload | null | undefined): Promise<RequestBlobs> {
    const blobs = requestBlobs(this.storage, upload)
    // Awaited by the run; a failure is answered there, never left unhandled meanwhile.
    blobs.catch(() => {})
    return blobs
  }

  /** Work that waits for the session's running turn, nothing else running meanwhile. */
  private exclusive<T>(work: () => Promise<T>): Promise<Outcome<T>> {
    return toOutcome(() => this.runner.exclusive(work))
  }

  /**
   * How a turn of this user is answered and limited: the deployment's limits, read here where they
   * apply; the user's memory store, called only if the turn runs a memory command.
   */
  private runSettings(address: SessionAddress, stream: boolean, door: boolean): RunSettings {
    return {
      stream,
      door,
      limiter: () => turnLimiterOf(this.env, address.userId, limitsOf(this.env)),
      onFailed: (error) => this.storage.notify(address.userId, [newNotice('turn.failed', address.sessionId, { error })]),
      recallAcross: (query, limit) => this.searchPart.recall(address, query, limit),
      memory: async (args) => unwrap(await memoryStub(this.env, address.userId).command(args)),
      // PROMPT_CACHE_KEY=session: the object's own id, stable for the session and naming no user.
      ...(this.env.PROMPT_CACHE_KEY?.trim() === 'session' ? { promptCacheKey: `ds-${this.ctx.id.toString()}` } : {}),
    }
  }
}
