import { DurableObject } from 'cloudflare:workers'
import {
  advanceStats,
  atSeq,
  type CompactionResult,
  compact,
  defaultEstimator,
  EMPTY_STATS,
  extendView,
  isCompaction,
  type Message,
  type MessageEvent,
  type MessageSkeleton,
  type Metadata,
  type NewEvent,
  newMessageEvent,
  type SessionEvent,
  type SessionStore,
  statsOf,
  type TokenEstimator,
  type Trigger,
  VersionConflictError,
} from '../../core'
import { ApiError, fail, notFound, type Outcome, outcome } from '../../errors'
import { ID_PATTERN, LIMITS } from '../../limits'
import { type ModelSettings, modelSettings, NOT_CONFIGURED } from '../../models/config'
import type { Usage } from '../../models/port'
import { modelSummarizer } from '../../models/summarizer'
import { defaultPolicy, type Policy, parsePolicy, type StrategySpec } from '../../policy'
import { userIndexStub } from '../address'
import { SessionLog, type ViewEntry } from './log'
import { readRecord, type SessionJson, type SessionRecord, sessionJson, writeRecord } from './record'
import { migrate } from './schema'
import { runTurn, type TurnFrame, type TurnHost, type TurnInput, type TurnResult, upstream } from './turn'
import { ViewBodies } from './view-bodies'

/** Which session a call is about: the object is named by this pair. */
export interface SessionRef {
  userId: string
  sessionId: string
}

export interface EventInput {
  id?: string
  message: Message
  metadata?: Metadata
  timestamp?: string
}

export interface CreateInput {
  ttlSeconds?: number
  metadata?: Metadata
  policy?: Policy | null
}

export interface PatchInput {
  ttlSeconds?: number | null
  metadata?: Metadata
  policy?: Policy | null
}

export interface AppendResult {
  version: number
  events: SessionEvent[]
  /** Whether anything new was written (201) or every event was already stored (200). */
  written: boolean
}

export interface ViewResult {
  events: MessageEvent[]
  tokens: number
  turns: number
  version: number
}

export interface LogPage {
  events: SessionEvent[]
  version: number
  nextAfter: number | null
}

const newId = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`
const nowIso = () => new Date().toISOString()

/** UTF-8 byte length without allocating an encoded copy. */
function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** The contract's measure of an event's size: its text, tool arguments and tool data. */
export function contentBytes(message: Message): number {
  let bytes = utf8Length(message.content ?? '')
  for (const call of message.toolCalls ?? []) bytes += utf8Length(call.arguments)
  for (const response of message.toolResponses ?? []) bytes += utf8Length(response.data)
  return bytes
}

/** A message with its keys in one order, so two equal messages serialize the same. */
const canonical = (m: Message) =>
  JSON.stringify([
    m.role,
    m.content,
    (m.toolCalls ?? []).map((c) => [c.id, c.name, c.arguments]),
    (m.toolResponses ?? []).map((r) => [r.id, r.name, r.data]),
  ])

/**
 * One chat session: its append-only event log in this object's SQLite storage, every append
 * serialized by the object. The view is kept in memory as small entries (ids, roles, token
 * estimates — never bodies) and advanced with every append, so reading it costs O(view) and
 * never touches the rest of the log; the counters live in the session row, updated in the same
 * transaction as the events.
 *
 * Each HTTP request makes one RPC call to one of the methods below. They answer an
 * {@link Outcome}: errors thrown across RPC would lose their type.
 */
export class SessionObject extends DurableObject<Env> {
  private readonly sql: SqlStorage
  // Protected, not private: the benchmark subclass (bench/entry.ts) measures them.
  protected readonly log: SessionLog
  private schemaReady = false
  /** The session row, once read; null when the session does not exist. */
  protected record: SessionRecord | null | undefined
  /** The view as small entries, once loaded (lazily: the constructor stays O(1)). */
  protected view: ViewEntry[] | null = null
  private readonly bodies = new ViewBodies()
  private estimator: TokenEstimator | null = null
  private settingsCache: ModelSettings | null = null
  /** Turns on this session run one at a time: each waits for the previous one's append. */
  private turnQueue: Promise<void> = Promise.resolve()

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.sql = ctx.storage.sql
    this.log = new SessionLog(this.sql)
  }

  // ── RPC methods ────────────────────────────────────────────────────────────────────────────

  /** Creates the session; 409 when it exists. */
  create(ref: SessionRef, input: CreateInput): Promise<Outcome<SessionJson>> {
    return outcome(async () => {
      if (await this.live()) throw fail(409, 'session_exists', `session "${ref.sessionId}" already exists`)
      const record = this.newRecord(ref, input)
      this.ensureSchema()
      this.ctx.storage.transactionSync(() => writeRecord(this.sql, record))
      this.record = record
      await this.afterCreate(record)
      return sessionJson(record)
    })
  }

  get(): Promise<Outcome<SessionJson>> {
    return outcome(async () => sessionJson(await this.existing()))
  }

  patch(input: PatchInput): Promise<Outcome<SessionJson>> {
    return outcome(async () => {
      const record = { ...(await this.existing()) }
      if (input.metadata !== undefined) record.metadata = input.metadata
      if (input.policy !== undefined) record.policy = input.policy
      if (input.ttlSeconds !== undefined) record.expiresAt = expiry(input.ttlSeconds)
      this.ctx.storage.transactionSync(() => writeRecord(this.sql, record))
      this.record = record
      if (input.ttlSeconds !== undefined) {
        await this.scheduleExpiry(record)
        await this.addToIndex(record) // the index hides sessions past their expiry: keep it in step
      }
      return sessionJson(record)
    })
  }

  /** Deletes the session and its whole log. */
  destroy(): Promise<Outcome<null>> {
    return outcome(async () => {
      await this.wipe(await this.existing())
      return null
    })
  }

  /**
   * Appends events all together or not at all, creating the session when it does not exist.
   * Ids already in the log must carry the same message and come back as stored;
   * `expectedVersion` is checked only when something new is to be written.
   */
  append(ref: SessionRef, inputs: EventInput[], expectedVersion?: number): Promise<Outcome<AppendResult>> {
    return outcome(async () => {
      checkInputs(inputs)
      const existing = await this.live()
      const stored = existing ? this.log.byIds(inputs.flatMap((e) => (e.id ? [e.id] : []))) : new Map<string, SessionEvent>()
      for (const input of inputs) {
        const found = input.id === undefined ? undefined : stored.get(input.id)
        if (found && (found.type !== 'MESSAGE' || canonical(found.message) !== canonical(input.message))) {
          throw fail(409, 'id_conflict', `event id "${input.id}" is already in the log with a different message`)
        }
      }
      const fresh = inputs.filter((input) => input.id === undefined || !stored.has(input.id))
      const version = existing?.version ?? 0
      if (fresh.length === 0) {
        return { version, events: inputs.map((input) => stored.get(input.id!)!), written: false }
      }
      if (expectedVersion !== undefined && expectedVersion !== version) {
        throw fail(409, 'version_conflict', `expected version ${expectedVersion}, but the session is at version ${version}`)
      }
      const estimator = await this.tokenEstimator()
      const at = nowIso()
      const events = fresh.map((input) =>
        newMessageEvent(
          {
            id: input.id ?? newId('evt'),
            message: input.message,
            timestamp: input.timestamp ? new Date(input.timestamp).toISOString() : at,
            metadata: input.metadata ?? {},
          },
          estimator,
        ),
      )
      // Nothing was awaited since the version was read, so no other request ran in between.
      const record = existing ?? this.newRecord(ref, {})
      this.ensureSchema()
      const written = new Map(this.commit(record, events).map((event) => [event.id, event]))
      if (!existing) await this.afterCreate(this.record!)
      let next = 0
      const result = inputs.map((input) => (input.id !== undefined && stored.get(input.id)) || written.get(events[next++]!.id)!)
      return { version: this.record!.version, events: result, written: true }
    })
  }

  /** The log, COMPACTION events included, from `after` on. */
  readLog(after: number, limit: number): Promise<Outcome<LogPage>> {
    return outcome(async () => {
      const record = await this.existing()
      const events = this.log.after(after, limit + 1)
      const page = events.slice(0, limit)
      return { events: page, version: record.version, nextAfter: events.length > limit ? page.at(-1)!.seq : null }
    })
  }

  /** The view: what the model is shown. */
  readView(): Promise<Outcome<ViewResult>> {
    return outcome(async () => {
      const record = await this.existing()
      return { events: this.viewEvents(), tokens: record.stats.tokens, turns: record.stats.turns, version: record.version }
    })
  }

  /**
   * Compacts the session through the core: the trigger (default `always`), the given strategy or
   * the session's policy strategy, or `lastEvents(20)`. A summarizer error is a 502, nothing written.
   */
  compact(request: { trigger?: Trigger; strategy?: StrategySpec }): Promise<Outcome<CompactionResult>> {
    return outcome(async () => {
      const record = await this.existing()
      return this.runCompaction({ trigger: request.trigger, strategy: request.strategy ?? record.policy?.strategy ?? {} })
    })
  }

  /**
   * Runs a chat turn. Answers at once with a stream of newline-delimited {@link TurnFrame}s
   * (deltas, then one `done` or `error`); the turn itself runs to the end even if the caller
   * stops reading, so a reply the model finished is always stored.
   */
  turn(ref: SessionRef, input: TurnInput): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
    const writer = writable.getWriter()
    const encoder = new TextEncoder()
    const send = (frame: TurnFrame) => void writer.write(encoder.encode(`${JSON.stringify(frame)}\n`)).catch(() => undefined)
    const work = this.runQueuedTurn(ref, input, send)
      .then((result) => send({ type: 'done', result }))
      .catch((error: unknown) => {
        if (!(error instanceof ApiError))
          console.error(
            JSON.stringify({ level: 'error', message: 'turn failed', error: String(error), stack: (error as Error)?.stack }),
          )
        send({
          type: 'error',
          error:
            error instanceof ApiError ? error.body : { status: 500, code: 'internal', message: 'the turn failed unexpectedly' },
        })
      })
      .finally(() => writer.close().catch(() => undefined))
    this.ctx.waitUntil(work)
    return readable
  }

  /** Deletes the session once it has expired; idempotent, and reschedules itself if early. */
  override async alarm(): Promise<void> {
    const record = this.readCurrentRecord()
    if (!record || record.expiresAt === null) return
    if (Date.parse(record.expiresAt) <= Date.now()) await this.wipe(record)
    else await this.ctx.storage.setAlarm(Date.parse(record.expiresAt))
  }

  // ── storage ────────────────────────────────────────────────────────────────────────────────

  /** Waits for earlier turns, then runs this one; the next may start once this one is written. */
  private async runQueuedTurn(ref: SessionRef, input: TurnInput, send: (frame: TurnFrame) => void): Promise<TurnResult> {
    const previous = this.turnQueue
    let release!: () => void
    this.turnQueue = new Promise<void>((resolve) => (release = resolve))
    await previous
    try {
      return await runTurn(this.turnHost(ref, release), input, send)
    } finally {
      release()
    }
  }

  private turnHost(ref: SessionRef, release: () => void): TurnHost {
    return {
      settings: this.settings(),
      estimator: () => this.tokenEstimator(),
      read: async () => {
        const record = await this.live()
        return { record, view: record ? this.viewEvents() : [] }
      },
      completed: (id, content) => this.completedTurn(id, content),
      compact: async (request) => {
        const record = await this.live()
        if (!record)
          return {
            unchanged: true,
            reason: 'nothing_to_cover',
            covered: [],
            pinned: [],
            summary: [],
            preserved: [],
            tokensEstimatedSaved: 0,
            boundary: null,
            version: 0,
          }
        return this.runCompaction(request)
      },
      write: async (events, usage) => {
        const existing = await this.live()
        const record = existing ?? this.newRecord(ref, {})
        this.ensureSchema()
        const written = this.commit(record, events, (first) => {
          const user = first.find((e) => e.type === 'MESSAGE' && e.message.role === 'user')!
          this.sql.exec(
            'INSERT INTO turns (id, first_seq, last_seq, user_seq, reply_seq, usage) VALUES (?, ?, ?, ?, ?, ?)',
            user.id,
            first[0]!.seq,
            first.at(-1)!.seq,
            user.seq,
            first.at(-1)!.seq,
            usage === null ? null : JSON.stringify(usage),
          )
        })
        release() // the next turn may start: its prompt will include this one
        if (!existing) await this.afterCreate(this.record!)
        return written
      },
      policy: (requested, record) => this.turnPolicy(requested, record),
    }
  }

  /** A completed turn by its user event id (see TurnHost.completed); an expired session has none. */
  private async completedTurn(id: string, content: string): Promise<TurnResult | 'conflict' | null> {
    if (!(await this.live())) return null
    const row = this.sql
      .exec<{ first_seq: number; last_seq: number; user_seq: number; reply_seq: number; usage: string | null }>(
        'SELECT * FROM turns WHERE id = ?',
        id,
      )
      .toArray()[0]
    if (!row) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const events = this.log.range(row.first_seq, row.last_seq)
    const user = events.find((e) => e.seq === row.user_seq)
    if (user?.type !== 'MESSAGE' || user.message.content !== content) return 'conflict'
    return {
      reply: events.find((e) => e.seq === row.reply_seq) as MessageEvent,
      events,
      compaction: null,
      usage: row.usage === null ? null : (JSON.parse(row.usage) as Usage),
      context: null,
    }
  }

  /** The turn's policy: the request's (false: none), the session's, COMPACTION_POLICY, or the built-in default. */
  private turnPolicy(requested: Policy | false | undefined, record: SessionRecord | null): Policy | null {
    if (requested === false) return null
    if (requested) return requested
    if (record?.policy) return record.policy
    const settings = this.settings()
    if (this.env.COMPACTION_POLICY) {
      const parsed = parsePolicy(this.env.COMPACTION_POLICY)
      if ('policy' in parsed) return parsed.policy
      console.error(
        JSON.stringify({
          level: 'error',
          message: `COMPACTION_POLICY is not valid (${parsed.problem}); using the built-in default`,
        }),
      )
    }
    return defaultPolicy(settings.contextTokens - settings.replyTokens, settings.model !== null)
  }

  /** One compaction pass through the core, with a model-backed summarizer when the strategy asks for one. */
  private async runCompaction(request: {
    trigger?: Trigger
    strategy: StrategySpec
    pending?: MessageSkeleton[]
  }): Promise<CompactionResult> {
    const record = this.record!
    const spec = request.strategy.summarizer
    let summarizer = null
    if (spec) {
      const settings = this.settings()
      if (!settings.model) throw fail(503, 'not_configured', `summaries need a model; ${NOT_CONFIGURED}`)
      summarizer = modelSummarizer({
        model: settings.model,
        modelName: spec.model ?? settings.summaryModel,
        maxTokens: settings.summaryTokens,
        overlapSize: spec.overlapSize,
        systemPrompt: spec.systemPrompt,
        shadowPrompt: spec.shadowPrompt,
        onFailure: (failure) =>
          console.warn(
            JSON.stringify({
              level: 'warn',
              message: 'summarizer failure',
              session: failure.session.id,
              kind: failure.kind,
              error: failure.error ? String(failure.error) : undefined,
            }),
          ),
      })
    }
    try {
      return await compact(
        {
          trigger: request.trigger,
          strategy: { window: request.strategy.window, summarizer },
          session: { id: record.id, metadata: record.metadata },
          pending: request.pending,
        },
        {
          store: this.port(),
          estimator: await this.tokenEstimator(),
          newId: () => newId('evt'),
          now: nowIso,
          warn: (message, data) => console.warn(JSON.stringify({ level: 'warn', message, ...data })),
        },
      )
    } catch (error) {
      throw upstream(error)
    }
  }

  private settings(): ModelSettings {
    this.settingsCache ??= modelSettings(this.env)
    return this.settingsCache
  }

  /** The storage port the core's compact() works through. */
  private port(): SessionStore {
    return {
      readView: async () => ({ view: this.viewEvents(), version: this.record!.version }),
      readSince: async (version) => this.log.after(version),
      append: async (events, expectedVersion) => {
        const record = await this.live()
        if (!record) throw notFound()
        if (record.version !== expectedVersion) throw new VersionConflictError(expectedVersion, record.version)
        return this.commit(record, events)
      },
    }
  }

  /**
   * Writes events after the record's version in one transaction, with the session row and its
   * counters; then advances the cached view. Synchronous: nothing can interleave.
   */
  private commit(
    record: SessionRecord,
    events: NewEvent[],
    alsoInTransaction?: (written: SessionEvent[]) => void,
  ): SessionEvent[] {
    const sequenced = events.map((event, i) => atSeq(event, record.version + 1 + i))
    const written = sequenced.filter((e): e is MessageEvent => e.type === 'MESSAGE')
    const entries = written.map(entry)
    const boundary = sequenced.findLast(isCompaction)
    let view: ViewEntry[] | null = null
    const next: SessionRecord = { ...record, version: record.version + sequenced.length }
    if (boundary) {
      let m = 0
      view = extendView<ViewEntry>(
        this.viewEntries(record),
        sequenced.map((e) => (e.type === 'MESSAGE' ? entries[m++]! : e)),
      )
      next.stats = statsOf(view)
      next.boundarySeq = boundary.seq
    } else {
      next.stats = advanceStats(record.stats, entries)
    }
    this.ctx.storage.transactionSync(() => {
      for (const event of sequenced) this.log.insert(event)
      writeRecord(this.sql, next)
      alsoInTransaction?.(sequenced)
    })
    this.record = next
    if (view) {
      this.view = view
      this.bodies.recount(view) // entries that left the view free their share
    } else if (this.view) {
      for (const e of entries) this.view.push(e)
    }
    // Kept whole only if they are in a cached view (a boundary names its summary events).
    if (this.view) for (const [i, e] of entries.entries()) this.bodies.keep(e, written[i]!)
    return sequenced
  }

  /** The view's entries, loaded on first use in O(view): the newest boundary's named events and what follows it. */
  private viewEntries(record: SessionRecord): ViewEntry[] {
    if (this.view) return this.view
    this.bodies.reset()
    if (record.boundarySeq === 0) {
      this.view = this.log.skeletonsAfter(0)
      return this.view
    }
    const boundary = this.log.range(record.boundarySeq, record.boundarySeq)[0]
    if (boundary?.type !== 'COMPACTION') throw new Error(`session ${record.id}: boundary ${record.boundarySeq} is missing`)
    const b = boundary.boundary
    const named = this.log.skeletonsByIds([...b.pinned, ...b.preserved])
    const head = [...b.pinned, ...b.preserved].flatMap((id) => named.get(id) ?? [])
    this.view = extendView<ViewEntry>(head, [boundary, ...this.log.skeletonsAfter(record.boundarySeq)])
    return this.view
  }

  /** The view's full events: kept ones from memory, the rest read by seq ranges (and kept if small). */
  private viewEvents(): MessageEvent[] {
    const entries = this.viewEntries(this.record!)
    const missing = entries.filter((e) => !e.full)
    if (missing.length > 0) {
      const read = this.log.bySeqs(missing.map((e) => e.seq)) as MessageEvent[]
      for (const [i, e] of missing.entries()) this.bodies.keep(e, read[i]!)
      let r = 0
      return entries.map((e) => (missing[r] === e ? read[r++]! : e.full!))
    }
    return entries.map((e) => e.full!)
  }

  /** The session row if the session exists and has not expired; an expired one is wiped now. */
  private async live(): Promise<SessionRecord | null> {
    const record = this.readCurrentRecord()
    if (!record) return null
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now()) {
      await this.wipe(record)
      return null
    }
    if (!record.indexed) await this.addToIndex(record)
    return record
  }

  private async existing(): Promise<SessionRecord> {
    const record = await this.live()
    if (!record) throw notFound()
    return record
  }

  private readCurrentRecord(): SessionRecord | null {
    if (this.record === undefined) this.record = this.hasSchema() ? readRecord(this.sql) : null
    return this.record
  }

  /**
   * Whether this object has ever stored a session (and its schema is current). Reads never
   * create tables: probing an absent id leaves no storage behind.
   */
  private hasSchema(): boolean {
    if (this.schemaReady) return true
    const found =
      this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").toArray().length > 0
    if (found) this.ensureSchema()
    return found
  }

  /** Creates or upgrades the schema; called before the first write. */
  private ensureSchema(): void {
    if (this.schemaReady) return
    migrate(this.ctx.storage)
    this.schemaReady = true
  }

  private newRecord(ref: SessionRef, input: CreateInput): SessionRecord {
    return {
      id: ref.sessionId,
      userId: ref.userId,
      createdAt: nowIso(),
      expiresAt: expiry(input.ttlSeconds ?? null),
      metadata: input.metadata ?? {},
      policy: input.policy ?? null,
      version: 0,
      boundarySeq: 0,
      stats: EMPTY_STATS,
      indexed: false,
    }
  }

  private async afterCreate(record: SessionRecord): Promise<void> {
    await this.scheduleExpiry(record)
    await this.addToIndex(record)
  }

  /** The alarm that deletes the session at its expiry (none when it never expires). */
  private async scheduleExpiry(record: SessionRecord): Promise<void> {
    if (record.expiresAt !== null) await this.ctx.storage.setAlarm(Date.parse(record.expiresAt))
    else await this.ctx.storage.deleteAlarm()
  }

  /** Lists the session in its user's index; retried on later requests if it fails. */
  private async addToIndex(record: SessionRecord): Promise<void> {
    try {
      await userIndexStub(this.env, record.userId).add({
        id: record.id,
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
      })
    } catch (error) {
      console.error(
        JSON.stringify({ level: 'error', message: 'session index update failed', session: record.id, error: String(error) }),
      )
      return
    }
    if (!record.indexed) {
      const current = this.readCurrentRecord()
      if (current && current.createdAt === record.createdAt) {
        const next = { ...current, indexed: true }
        this.ctx.storage.transactionSync(() => writeRecord(this.sql, next))
        this.record = next
      }
    }
  }

  /** Deletes everything the session stored, and its index entry. */
  private async wipe(record: SessionRecord): Promise<void> {
    await this.ctx.storage.deleteAlarm()
    await this.ctx.storage.deleteAll()
    this.schemaReady = false
    this.record = undefined
    this.view = null
    await userIndexStub(this.env, record.userId).remove(record.id, record.createdAt)
  }

  protected async tokenEstimator(): Promise<TokenEstimator> {
    this.estimator ??= defaultEstimator
    return this.estimator
  }
}

const entry = (event: MessageEvent): ViewEntry => ({
  type: 'MESSAGE',
  id: event.id,
  seq: event.seq,
  tokens: event.tokens,
  synthetic: event.synthetic,
  message: { role: event.message.role },
})

const expiry = (ttlSeconds: number | null): string | null =>
  ttlSeconds === null ? null : new Date(Date.now() + ttlSeconds * 1000).toISOString()

/** The checks the store owns whoever calls it: ids, duplicates, sizes. */
function checkInputs(inputs: EventInput[]): void {
  if (inputs.length === 0 || inputs.length > LIMITS.eventsPerAppend) {
    throw fail(400, 'invalid_request', `events: must hold 1 to ${LIMITS.eventsPerAppend} events`)
  }
  const seen = new Set<string>()
  inputs.forEach((input, i) => {
    if (input.id !== undefined) {
      if (!ID_PATTERN.test(input.id))
        throw fail(400, 'invalid_request', `events[${i}].id: must be 1–128 characters of A-Z a-z 0-9 . _ : -`)
      if (seen.has(input.id))
        throw fail(400, 'invalid_request', `events[${i}].id: "${input.id}" appears more than once in this request`)
      seen.add(input.id)
    }
    const bytes = contentBytes(input.message)
    if (bytes > LIMITS.eventContentBytes) {
      throw fail(
        413,
        'payload_too_large',
        `events[${i}]: content is ${bytes} bytes; the limit is ${LIMITS.eventContentBytes} bytes per event`,
      )
    }
  })
}
