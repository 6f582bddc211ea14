/**
 * The Worker the benchmarks run: the real app and Durable Objects, plus bench-only routes that
 * time work inside workerd (so the local dev server's proxy is not in the numbers), a naive
 * baseline, and the closest peer on this platform (the Agents SDK's session storage). Everything
 * Workers-side of the bench is in this one file: tsconfig.json typechecks it, tsconfig.node.json
 * the rest of bench/.
 */
import { DurableObject } from 'cloudflare:workers'
import { Lifecycle } from 'agents/lifecycle'
import { Sessions } from 'agents/sessions'
import { type Context, Hono } from 'hono'
import { sign } from 'hono/jwt'
import { type Compactor, chatModelFit } from '../src/compaction'
import { requestedPass } from '../src/compaction/requested'
import { type BlobUpload, readUpload } from '../src/contract/blob-upload'
import type { OpenAIMessage } from '../src/contract/openai-messages'
import {
  type AppendInput,
  type ChatMessageInput,
  ResponsesRequestSchema,
  SEARCH_START,
  type TurnInput,
} from '../src/contract/schemas'
import { acrossSessions } from '../src/contract/search-settings'
import {
  type Boundary,
  compactionEventAt,
  countingEstimator,
  defaultEstimator,
  type Message,
  messageEventAt,
  project,
  type SessionEvent,
} from '../src/core'
import type { DoorRequest } from '../src/doors'
import { app } from '../src/http/app'
import { authConfigOf, bearerJwt } from '../src/http/auth'
import { TURN_EVENTS } from '../src/http/routes/turns'
import { readTurnAnswer } from '../src/http/turn-answer'
import { openAICompatible } from '../src/models/openai-compatible'
import { searchShardStub, sessionStub } from '../src/object/address'
import { frameWriter } from '../src/object/frames'
import { RequestShard } from '../src/object/request-shard'
import { SearchShard as ServiceSearchShard } from '../src/object/search-shard'
import { type JsonBody, SessionObject } from '../src/object/session-object'
import type { RunSettings } from '../src/object/turn-runner'
import { Sql } from '../src/sql'
import { SessionBlobs } from '../src/store/log/blobs'
import type { OpenSession } from '../src/store/log/open-session'
import { chatCompletionTranslation } from '../src/wire/chat-completions/request'
import { doorRequestOf } from '../src/wire/door-request'
import { MediaIntake } from '../src/wire/media'
import { messagesTranslation } from '../src/wire/messages/request'
import { responsesTranslation } from '../src/wire/responses/request'
import { countRows, type RowCounts } from '../test/support/row-counts'
import { loopsBench } from './loops-entry'
import { mcpBench } from './mcp-entry'
import { mediaBench } from './media-entry'
import { BenchMemoryStore, memoryBench } from './memory-entry'
import { loopResult, type Measured, message, type StorageWork } from './shared'
import { perRun, timedInside } from './timing'

export { UserIndex } from '../src/object/user-index'
export { BenchMemoryStore }

// ── timing and reading answers ───────────────────────────────────────────────────────────────

/** A JSON answer of the session object, read to the end as a reader taking all of it would. */
async function answerText(answer: Promise<{ ok: true; value: JsonBody } | { ok: false; error: unknown }>): Promise<string> {
  const outcome = await answer
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error))
  return typeof outcome.value === 'string' ? outcome.value : new Response(outcome.value).text()
}

/** Throws the error of an answer that is one. */
async function succeeded(answer: Promise<{ ok: boolean; error?: unknown }>): Promise<void> {
  const outcome = await answer
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error))
}

/** This run of the benchmark Worker (random values cannot be made at global scope). */
let run: string | undefined
const thisRun = () => {
  run ??= crypto.randomUUID().slice(0, 8)
  return run
}

// ── the session object, measured ────────────────────────────────────────────────────────────

/** A row of the events table (bench sessions have no multi-part bodies: `body` is all of it). */
type EventRow = {
  seq: number
  id: string
  type: string
  synthetic: number
  tokens: number
  timestamp: string
  metadata: string
  body: string
}

/** An events row as the core's event. */
const eventOf = (row: EventRow): SessionEvent => {
  const metadata = JSON.parse(row.metadata) as Record<string, unknown>
  return row.type === 'MESSAGE'
    ? messageEventAt(row.id, row.seq, row.timestamp, metadata, row.synthetic === 1, row.tokens, JSON.parse(row.body) as Message)
    : compactionEventAt(row.id, row.seq, row.timestamp, metadata, JSON.parse(row.body) as Boundary)
}

/** A turn's storage work as two appends: the user message, then the reply (an agent's: with the call, then its result). */
function turnAppends(at: number, work: StorageWork): [AppendInput[], AppendInput[]] {
  const user: AppendInput = { message: { role: 'user', content: message(at) } }
  const reply: AppendInput = { message: { role: 'assistant', content: message(at + 1) } }
  if (work === 'turn') return [[user], [reply]]
  const call = { id: `k${thisRun()}-${at}`, name: 'lookup', arguments: JSON.stringify({ q: message(at) }) }
  const result = { id: call.id, name: 'lookup', data: `result ${at}: `.repeat(20) }
  return [
    [user, { message: { role: 'assistant', content: null, toolCalls: [call] } }],
    [{ message: { role: 'tool', content: null, toolResponses: [result] } }, reply],
  ]
}

type Address = Parameters<SessionObject['append']>[0]

/** The session object, with what a benchmark needs to look inside it: its own public methods, called here. */
export class BenchSessionObject extends SessionObject {
  /** Every estimate of this isolate's sessions, counted. */
  static override readonly estimator = countingEstimator(defaultEstimator)
  /** Sessions named `noacross-…` hand nothing to the search across sessions: appends with it and without, side by side. */
  static override readonly acrossSessions = (env: Env, ctx: DurableObjectState) =>
    ctx.id.name?.includes('/noacross-') ? { on: false, shards: 1 } : acrossSessions(env)
  private readonly rows: { take(): RowCounts }
  private readonly statements: { take(): StatementRows[] }

  constructor(ctx: DurableObjectState, env: Env) {
    // Installed before the object runs its first statement.
    const rows = countRows(ctx.storage)
    const statements = countStatements(ctx.storage)
    super(ctx, env)
    this.rows = rows
    this.statements = statements
  }

  /** The rows each statement read and wrote since the last take. */
  takeStatements(): StatementRows[] {
    return this.statements.take()
  }

  /** The view the naive way: the whole log read and projected on every call. */
  naiveView(): number {
    const rows = this.ctx.storage.sql.exec<EventRow>('SELECT * FROM events WHERE seq > 0 ORDER BY seq').toArray()
    return project(rows.map(eventOf)).length
  }

  /** The view read inside the object (what a view read costs before its answer travels back); answers its length. */
  async viewInside(): Promise<number> {
    return (await answerText(this.readView())).length
  }

  /** `batch` searches timed inside the object, without the RPC around each (see `/search`). */
  searchInside(query: Parameters<SessionObject['search']>[0], batch: number): Promise<Measured> {
    return perRun(this.rows, batch, () => answerText(this.search(query)))
  }

  /** An upload read as a turn reads it, nothing written: the hand-over of a request's images (bench/media-entry.ts). */
  async uploadRead(upload: BlobUpload | null): Promise<number> {
    return (await readUpload(upload)).size
  }

  /** An upload's blobs written as a turn writes them, in one transaction; answered once durable, as a turn is. */
  async blobsWritten(upload: BlobUpload | null): Promise<number> {
    const staged = await readUpload(upload)
    const blobs = new SessionBlobs(new Sql(this.ctx.storage.sql))
    return this.ctx.storage.transactionSync(() => blobs.write(staged.values()))
  }

  /**
   * The same write timed inside the object, `batch` times (each copy under names of its own):
   * SQLite's work without the wait for durability that holds the call's answer.
   */
  async blobsWrittenInside(upload: BlobUpload | null, batch: number): Promise<number> {
    const staged = [...(await readUpload(upload)).values()]
    const blobs = new SessionBlobs(new Sql(this.ctx.storage.sql))
    return timedInside(batch, async (i) =>
      this.ctx.storage.transactionSync(() => blobs.write(staged.map((blob) => ({ ...blob, ref: `${blob.ref}-${i}` })))),
    )
  }

  /** Deletes every blob (after {@link blobsWritten}, untimed). */
  blobsCleared(): void {
    new SessionBlobs(new Sql(this.ctx.storage.sql)).clear()
  }

  /** Ends this object's instance: the next call starts a fresh one, as after an eviction. */
  restart(): void {
    this.ctx.abort('benchmark: start cold')
  }

  /** One turn's storage work, the way the peer's is measured: two appends and a view read, inside the object. */
  storageTurns(address: Address, batch: number, from: number, work: StorageWork): Promise<Measured> {
    return perRun(this.rows, batch, async (i) => {
      const [first, second] = turnAppends(from + 2 * i, work)
      await succeeded(this.append(address, first))
      await succeeded(this.append(address, second))
      await this.viewInside()
    })
  }

  /** `batch` whole chat turns run inside the object, their frames read here: a turn without the call to the object. */
  turnsInside(address: Address, batch: number, from: number, compaction: TurnInput['compaction']): Promise<Measured> {
    return perRun(this.rows, batch, async (i) => {
      const text = await new Response(await this.turn(address, { content: message(from + i), compaction })).text()
      if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
    })
  }

  /**
   * `batch` bare calls from this object to the stub upstream, with the very body a turn sent it:
   * the model call's share of a turn's floor, nothing of ours around it.
   */
  bareUpstreamCalls(batch: number, body: string): Promise<Measured> {
    this.floorBody = body
    return perRun(this.rows, batch, () => this.bareUpstreamCall())
  }

  /** The body of the bare calls (kept here, so that a floor turn's RPC does not carry it). */
  private floorBody = ''

  private async bareUpstreamCall(): Promise<void> {
    const response = await fetch(`${this.env.OPENAI_BASE_URL}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer bench' },
      body: this.floorBody,
    })
    if (!response.ok) throw new Error(await response.text())
    await response.text()
  }

  /**
   * A turn's floor as one call to the object, as a turn is: the view read, a bare call to the
   * upstream with the body a turn sent (see {@link bareUpstreamCalls}, which keeps it), then the
   * user message and the reply appended together, as a turn writes them; the call answers once
   * its write is committed, as a turn's does.
   */
  async floorTurn(address: Address, at: number): Promise<void> {
    if (this.floorBody === '') throw new Error('no body for the bare call yet: measure bareUpstream first')
    const [user, reply] = turnAppends(at, 'turn')
    await this.viewInside()
    await this.bareUpstreamCall()
    await succeeded(this.append(address, [...user, ...reply]))
  }

  /** Nothing: the round trip of a call from the Worker to the object. */
  ping(): number {
    return 0
  }

  /**
   * Memory commands (their arguments as a model writes them) as a turn runs them: through the
   * function a turn of this user is given for the memory tool (the object's call to the user's
   * memory object), timed inside this object.
   */
  memoryCommands(address: Address, commands: string[]): Promise<Measured> {
    // The very settings a turn of this user runs with (a private method, reached for the benchmark).
    const settings = (this as unknown as { runSettings(a: Address, stream: boolean, door: boolean): RunSettings }).runSettings(
      address,
      false,
      false,
    )
    return perRun(this.rows, commands.length, (i) => settings.memory!(commands[i]!))
  }

  /**
   * The raw-SQLite floor of one turn's storage work, inside the object: two plain inserts of the
   * turn's messages and a read of the view's rows by seq, nothing else (no checks, no counters, no
   * index, no JSON made). What {@link storageTurns} is measured against.
   */
  async floorTurns(batch: number, from: number): Promise<Measured> {
    const sql = this.ctx.storage.sql
    sql.exec('CREATE TABLE IF NOT EXISTS floor_events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const view = JSON.parse(await answerText(this.readView())) as { events: { seq: number }[] }
    const seqs = JSON.stringify(view.events.map((event) => event.seq))
    return perRun(this.rows, batch, async (i) => {
      for (const role of ['user', 'assistant'])
        sql.exec('INSERT INTO floor_events (body) VALUES (?)', JSON.stringify({ role, content: message(from + 2 * i) }))
      sql.exec('SELECT * FROM events WHERE seq IN (SELECT value FROM json_each(?))', seqs).toArray()
    })
  }

  /**
   * An agent loop's storage work against a clearing pass, inside the object: `batch` tool groups
   * (a call and its 8 KB result) appended, an untimed clearing, then `batch` more each followed by
   * a clearing pass (keep 3, as the fit check's) that clears the one result that aged out. The
   * samples are the clearing's time (the second batch's less the first's), per group; `counts` the
   * append's, and the rows of each. `answered`: the pass as `POST /compact` runs it, its answer
   * (the view's events) read to the end; else as a door's turn runs it, with no answer to write.
   */
  async loopClearings(address: Address, from: number, batch: number, answered: boolean): Promise<Measured> {
    const group = (step: number): AppendInput[] => {
      const id = `c${thisRun()}-${step}`
      return [
        { message: { role: 'assistant', content: null, toolCalls: [{ id, name: 'read_file', arguments: `{"step":${step}}` }] } },
        { message: { role: 'tool', content: null, toolResponses: [{ id, name: 'read_file', data: loopResult(step) }] } },
      ]
    }
    const strategy = { clearToolResults: { keep: 3 } }
    const clear = async () => {
      if (!answered) {
        const { session, compaction } = await this.passing()
        if ((await requestedPass(compaction, session, { strategy }, this.env)).unchanged) throw new Error('no clearing')
        return
      }
      const text = await answerText(this.compact({ strategy }))
      if (!text.startsWith('{"unchanged":false')) throw new Error(`no clearing: ${text.slice(0, 300)}`)
    }
    const appends = await perRun(this.rows, batch, (i) => succeeded(this.append(address, group(from + i))))
    await clear()
    const both = await perRun(this.rows, batch, async (i) => {
      await succeeded(this.append(address, group(from + batch + i)))
      await clear()
    })
    return {
      samples: [both.samples[0]! - appends.samples[0]!],
      rows: {
        rowsRead: both.rows!.rowsRead - appends.rows!.rowsRead,
        rowsWritten: both.rows!.rowsWritten - appends.rows!.rowsWritten,
      },
      counts: {
        appendMs: appends.samples[0]!,
        appendRowsRead: appends.rows!.rowsRead,
        appendRowsWritten: appends.rows!.rowsWritten,
      },
    }
  }

  /** The session open, the object's compactor, and the chat model's fit at the session's calibration: what a pass is run with. */
  private async passing() {
    const { storage, compaction } = this as unknown as {
      storage: { openExisting(): Promise<OpenSession> }
      compaction: Compactor
    }
    const session = await storage.openExisting()
    return { session, compaction, model: chatModelFit(this.env, session.record()!.calibration.ratio) }
  }

  /**
   * A summary prepared for {@link PREPARED_PASS}'s pass on the view as it is now, as a turn's
   * preparation keeps it after its answer (a sample's untimed setup: the summary model is asked
   * unless one is kept for the same range).
   */
  async preparePass(): Promise<void> {
    const { session, compaction, model } = await this.passing()
    // False when nothing new was needed: the session's own preparation after its last turn may have kept the same.
    await compaction.prepare(session, session.info(), { strategy: PREPARED_PASS, model, at: 0, nextMessage: true })
  }

  /** That pass, answered from the summary prepared for it (no model call). Answers the events it covered. */
  async preparedPass(): Promise<number> {
    const { session, compaction, model } = await this.passing()
    const result = await compaction.run(session, session.info(), { trigger: { always: true }, strategy: PREPARED_PASS, model })
    if (result.unchanged || result.boundary?.type !== 'COMPACTION' || !result.boundary.boundary.prepared)
      throw new Error(`prepared pass: not answered from the prepared summary (${result.reason})`)
    return result.covered.length
  }

  /**
   * A pass inside the newest turn, as a turn's fit check runs it when an agent's loop alone
   * outgrows the window (see `makeRoom`): every tool group of the turn but the newest covered
   * behind one note, no summary. Answers the events it covered.
   */
  async inTurnPass(): Promise<number> {
    const { session, compaction, model } = await this.passing()
    const result = await compaction.run(session, session.info(), {
      trigger: { always: true },
      strategy: { summarizer: null },
      model,
      inTurn: { tokenBudget: 0, summaryReserve: 0 },
    })
    if (result.unchanged) throw new Error(`in-turn pass: unchanged (${result.reason})`)
    return result.covered.length
  }

  /** Rows read and written by the calls since the last one. */
  takeRows(): RowCounts {
    return this.rows.take()
  }

  /**
   * Once the session's search index has no merging left to run: the work an append leaves for
   * after its answer, which the seconds a real model takes between two steps of a loop leave
   * room for (the stub answers at once). How many turns of the event loop it waited.
   */
  async settled(): Promise<number> {
    const { storage } = this as unknown as { storage: { searchIndex: { merges: { merging: boolean } } } }
    let turns = 0
    while (storage.searchIndex.merges.merging) {
      if (++turns > 10_000) throw new Error('the search index is still merging')
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
    return turns
  }

  /** The size of this object's SQLite database, in bytes (its pages). */
  databaseSize(): number {
    return this.ctx.storage.sql.databaseSize
  }

  /** The blobs this session holds: how many, their chunks' rows, their bytes (0 before the session's schema). */
  blobStats(): { blobs: number; chunks: number; bytes: number } {
    const sql = this.ctx.storage.sql
    if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'blobs'").toArray().length === 0)
      return { blobs: 0, chunks: 0, bytes: 0 }
    const { blobs, bytes } = sql
      .exec<{ blobs: number; bytes: number }>('SELECT count(*) AS blobs, coalesce(sum(bytes), 0) AS bytes FROM blobs')
      .one()
    const { chunks } = sql.exec<{ chunks: number }>('SELECT count(*) AS chunks FROM blob_chunks').one()
    return { blobs, chunks, bytes }
  }

  /** Token estimates computed in this isolate so far, and the messages in this object's log. */
  estimates(): { calls: number; messages: number } {
    const messages = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM events WHERE type = 'MESSAGE'").one().n
    return { calls: BenchSessionObject.estimator.calls, messages }
  }
}

// ── the peer ────────────────────────────────────────────────────────────────────────────────

type Part = { type: 'text'; text: string }
const textPart = (i: number): Part[] => [{ type: 'text', text: message(i) }]

/** The Agents SDK's session storage on a plain Durable Object, as its docs install it. */
export class AgentsPeer extends DurableObject<Env> {
  private readonly rows: { take(): RowCounts }
  readonly sessions: Sessions
  readonly lifecycle: Lifecycle
  readonly session: ReturnType<Sessions['session']>

  constructor(ctx: DurableObjectState, env: Env) {
    const rows = countRows(ctx.storage)
    super(ctx, env)
    this.rows = rows
    this.sessions = new Sessions()
    this.lifecycle = Lifecycle.install(this).use(this.sessions)
    this.session = this.sessions.session()
  }

  /** Imports `count` messages (user/assistant alternating) as history; answers where the next import starts. */
  async seed(count: number, from: number): Promise<number> {
    let parent = (await this.session.getLatestLeaf())?.id ?? null
    for (let i = from; i < from + count; i++) {
      const id = `m${i}`
      const role = i % 2 === 0 ? 'user' : 'assistant'
      await this.session.importMessage({ id, role, parts: textPart(i) }, { parentId: parent, createdAt: Date.now() })
      parent = id
    }
    return from + count
  }

  /** How many messages the history holds. */
  size(): number {
    const sql = this.ctx.storage.sql
    const table = sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'cf_agents_session_messages'").toArray()
    return table.length === 0 ? 0 : sql.exec<{ n: number }>('SELECT count(*) AS n FROM cf_agents_session_messages').one().n
  }

  /** One turn's storage work: the user message and the reply appended, then the bounded recent history read. */
  async turn(i: number): Promise<number> {
    // Ids new to this run: the peer skips a message whose id it has (the state is kept between runs).
    await this.session.appendMessage({ id: `t${thisRun()}-${i}u`, role: 'user', parts: textPart(i) })
    await this.session.appendMessage({ id: `t${thisRun()}-${i}a`, role: 'assistant', parts: textPart(i + 1) })
    return (await this.session.getRecentHistory(64 * 1024)).messages.length
  }

  /**
   * One agent turn's storage work, as the AI SDK's messages hold it: the user message and the
   * call appended (a tool part waiting for its output), the call's message updated with the
   * output, the reply appended, and the bounded recent history read back.
   */
  async toolStep(i: number): Promise<number> {
    const id = `t${thisRun()}-${i}`
    const call = { type: 'tool-lookup', toolCallId: `k${id}`, input: { q: message(i) } }
    const output = `result ${i}: `.repeat(20)
    await this.session.appendMessage({ id: `${id}u`, role: 'user', parts: textPart(i) })
    await this.session.appendMessage({ id: `${id}c`, role: 'assistant', parts: [{ ...call, state: 'input-available' }] })
    await this.session.updateMessage({ id: `${id}c`, role: 'assistant', parts: [{ ...call, state: 'output-available', output }] })
    await this.session.appendMessage({ id: `${id}a`, role: 'assistant', parts: textPart(i + 1) })
    return (await this.session.getRecentHistory(64 * 1024)).messages.length
  }

  /** The same turns (or tool steps), measured as ours are (see {@link BenchSessionObject.storageTurns}). */
  storageTurns(batch: number, from: number, work: StorageWork): Promise<Measured> {
    return perRun(this.rows, batch, (i) => (work === 'tool' ? this.toolStep(from + 2 * i) : this.turn(from + 2 * i)))
  }

  /** A search (20 hits), answered as its hits' JSON, as a service built on it would send them back (ours answers its page's JSON). */
  async search(query: string): Promise<string> {
    return JSON.stringify(await this.session.search(query, { limit: 20 }))
  }

  /** The same searches timed inside the object, as ours are by {@link BenchSessionObject.searchInside}. */
  searchInside(query: string, batch: number): Promise<Measured> {
    return perRun(this.rows, batch, () => this.search(query))
  }

  /** Rows read and written by the calls since the last one. */
  takeRows(): RowCounts {
    return this.rows.take()
  }

  /** A compaction overlay over the older half of the history. */
  async overlay(upTo: number): Promise<void> {
    await this.session.addCompaction('Summary of the earlier conversation.', 'm0', `m${Math.floor(upTo / 2)}`)
  }
}

// ── timing in the Worker, around RPC calls ──────────────────────────────────────────────────

/** How many calls the Worker has timed: each call's `i`, so that no two turns send the same message. */
let calls = 0

/**
 * `runs` samples of `call`, each the mean of `batch` calls timed together: the clock moves in
 * 3 ms steps, so a batch divides the step.
 */
async function timed(runs: number, batch: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = []
  for (let sample = 0; sample < runs; sample++) {
    const start = performance.now()
    for (let b = 0; b < batch; b++) await call(calls++)
    samples.push((performance.now() - start) / batch)
  }
  return samples
}

/** An object that counts its rows. */
/** A request-limit shard whose cost for one request can be timed inside it. */
export class BenchRequestShard extends RequestShard {
  private readonly rows: { take(): RowCounts }

  constructor(ctx: DurableObjectState, env: Env) {
    const rows = countRows(ctx.storage)
    super(ctx, env)
    this.rows = rows
  }

  /** `batch` admissions inside the object (a share that never runs out): what counting one request costs it. */
  admissions(batch: number): Promise<Measured> {
    return perRun(this.rows, batch, async () => this.admit(Number.MAX_SAFE_INTEGER))
  }
}

type RowCounting = { takeRows(): Promise<RowCounts> | RowCounts }

/** What one statement (by its text) read and wrote since the last take, and how many times it ran. */
type StatementRows = { statement: string; runs: number } & RowCounts

/**
 * Counts the rows of each statement of an object's storage, by its text (installed after
 * `countRows`, which it calls through): where a path's rows go, statement by statement. It keeps
 * nothing until its first take (a route that asks takes once before the work, once after).
 */
function countStatements(storage: DurableObjectStorage): { take(): StatementRows[] } {
  const sql = storage.sql
  const exec = sql.exec.bind(sql)
  const cursors = new Map<string, SqlStorageCursor<Record<string, SqlStorageValue>>[]>()
  let recording = false
  sql.exec = ((text: string, ...bindings: unknown[]) => {
    const cursor = exec(text, ...bindings)
    if (!recording) return cursor
    const key = text.replace(/\s+/g, ' ').trim()
    cursors.set(key, [...(cursors.get(key) ?? []), cursor])
    return cursor
  }) as typeof sql.exec
  return {
    take() {
      recording = true
      const taken = [...cursors].map(([statement, ran]) => ({
        statement,
        runs: ran.length,
        rowsRead: ran.reduce((sum, cursor) => sum + cursor.rowsRead, 0),
        rowsWritten: ran.reduce((sum, cursor) => sum + cursor.rowsWritten, 0),
      }))
      cursors.clear()
      return taken.sort((a, b) => b.rowsRead + b.rowsWritten - (a.rowsRead + a.rowsWritten))
    },
  }
}

/** The service's search shard, its rows counted (the same class name: the bench's binding is unchanged). */
export class SearchShard extends ServiceSearchShard {
  private readonly rows: { take(): RowCounts }
  private readonly statements: { take(): StatementRows[] }

  constructor(ctx: DurableObjectState, env: Env) {
    const rows = countRows(ctx.storage)
    const statements = countStatements(ctx.storage)
    super(ctx, env)
    this.rows = rows
    this.statements = statements
  }

  /** Rows read and written by the calls since the last one. */
  takeRows(): RowCounts {
    return this.rows.take()
  }

  /** The rows each statement read and wrote since the last take. */
  takeStatements(): StatementRows[] {
    return this.statements.take()
  }
}

/** All of a user's search shards, their rows taken together. */
const userShards = (env: Env, user: string): RowCounting => {
  const { shards } = acrossSessions(env)
  const stubs = Array.from(
    { length: shards },
    (_, shard) => searchShardStub(env, user, shards, shard) as unknown as DurableObjectStub<SearchShard>,
  )
  return {
    async takeRows() {
      const taken = await Promise.all(stubs.map((stub) => stub.takeRows()))
      return {
        rowsRead: taken.reduce((sum, rows) => sum + rows.rowsRead, 0),
        rowsWritten: taken.reduce((sum, rows) => sum + rows.rowsWritten, 0),
      }
    },
  }
}

/** Runs `work`, answering what it answers and the rows the object read and wrote meanwhile. */
async function withRows<T>(object: RowCounting, work: () => Promise<T>): Promise<[T, RowCounts]> {
  await object.takeRows()
  const result = await work()
  return [result, await object.takeRows()]
}

// ── the bench routes ────────────────────────────────────────────────────────────────────────

type BenchEnv = Env & { PEER: DurableObjectNamespace<AgentsPeer>; OBJECT_PROXY: DurableObjectNamespace<ObjectProxy> }
type BenchContext = Context<{ Bindings: BenchEnv }>

const query = (c: BenchContext, name: string) => c.req.query(name) ?? ''
const numberOf = (c: BenchContext, name: string, fallback = 1) => Number(c.req.query(name) ?? fallback)
const addressOf = (c: BenchContext): Address => ({ userId: query(c, 'user'), sessionId: query(c, 'session') })
const sessionOf = (c: BenchContext) =>
  sessionStub(c.env, query(c, 'user'), query(c, 'session')) as unknown as DurableObjectStub<BenchSessionObject>
const peerOf = (c: BenchContext) => c.env.PEER.getByName(query(c, 'peer'))
/** The turn's compaction policy, as JSON in `compaction`. */
const compactionOf = (c: BenchContext): TurnInput['compaction'] => JSON.parse(query(c, 'compaction') || 'false')

/** The samples of `call`, timed here as `runs` and `batch` say. */
const sampled = async (c: BenchContext, call: (i: number) => Promise<unknown>) =>
  c.json<Measured>({ samples: await timed(numberOf(c, 'runs'), numberOf(c, 'batch'), call) })

/** The samples of `call`, with the rows `object` read and wrote per call. */
async function sampledWithRows(c: BenchContext, object: RowCounting, call: (i: number) => Promise<unknown>) {
  const [runs, batch] = [numberOf(c, 'runs'), numberOf(c, 'batch')]
  const [samples, rows] = await withRows(object, () => timed(runs, batch, call))
  return c.json<Measured>({
    samples,
    rows: { rowsRead: rows.rowsRead / (runs * batch), rowsWritten: rows.rowsWritten / (runs * batch) },
  })
}

/** A whole turn through the object, its stream read to the end, as text. */
async function turnText(c: BenchContext, input: TurnInput): Promise<string> {
  return new Response(await sessionOf(c).turn(addressOf(c), input)).text()
}

/** A whole chat turn through the object (model = the local stub). */
async function chatTurn(c: BenchContext, i: number): Promise<void> {
  const text = await turnText(c, { content: message(i), compaction: compactionOf(c) })
  if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
}

/** The one client tool the tool-loop benchmark offers. */
const TOOLS = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }]

/** A turn with the agent-mode stub: tool calls after a user message, text after results. */
const agentTurn = (c: BenchContext, input: Pick<TurnInput, 'content' | 'toolResults'>) =>
  turnText(c, { model: 'agent-_', tools: TOOLS, compaction: compactionOf(c), ...input })

/** Asks a question the stub answers with one tool call; answers the call's id. */
async function askForTool(c: BenchContext, i: number): Promise<string> {
  const text = await agentTurn(c, { content: message(i) })
  const id = /"toolCalls":\[\{"id":"([^"]+)"/.exec(text)?.[1]
  if (!id) throw new Error(`no tool call: ${text.slice(0, 300)}`)
  return id
}

/**
 * A tool loop's second step, `batch` times: a turn whose reply calls a tool (untimed), then the
 * continuation with its result (timed); the rows are the last continuation's.
 */
async function continuations(c: BenchContext, batch: number): Promise<Measured> {
  let total = 0
  let rows: RowCounts = { rowsRead: 0, rowsWritten: 0 }
  for (let b = 0; b < batch; b++) {
    const id = await askForTool(c, calls++)
    const [ms, taken] = await withRows(sessionOf(c), async () => {
      const start = performance.now()
      const text = await agentTurn(c, { toolResults: [{ id, data: 'the looked-up value' }] })
      if (!text.includes('"status":"completed"')) throw new Error(text.slice(0, 300))
      return performance.now() - start
    })
    total += ms
    rows = taken
  }
  return { samples: [total / batch], rows }
}

/** A door request with no header set, from a wire format's translation (see `doorRequestOf`). */
const plainDoor = (translation: Parameters<typeof doorRequestOf>[0], messages: unknown) =>
  doorRequestOf(translation, messages, {}, {})

/** A door's request as the session object takes it, from a client's messages, in each wire format. */
const DOORS = {
  chat: async (messages: ChatMessageInput[]) =>
    plainDoor(await chatCompletionTranslation({ model: 'echo', messages }, new MediaIntake()), messages),
  messages: async (messages: ChatMessageInput[]) => {
    const sent = messages.map((m) => ({ role: m.role, content: typeof m.content === 'string' ? m.content : '' }))
    return plainDoor(await messagesTranslation({ model: 'echo', max_tokens: 1024, messages: sent }, new MediaIntake()), sent)
  },
  // As Codex sends them: message items, the whole input every time.
  responses: async (messages: ChatMessageInput[]) => {
    const text = (m: ChatMessageInput) => (typeof m.content === 'string' ? m.content : '')
    // Tool results and calls as Codex sends them: function_call_output and function_call items.
    const input = messages.flatMap((m): Record<string, unknown>[] => {
      if (m.role === 'tool') return [{ type: 'function_call_output', call_id: m.tool_call_id, output: text(m) }]
      const calls = (m.tool_calls ?? []).map((call) => ({ type: 'function_call', call_id: call.id, ...call.function }))
      const said =
        text(m) === '' && calls.length > 0
          ? []
          : [
              {
                type: 'message',
                role: m.role,
                content: [{ type: m.role === 'assistant' ? 'output_text' : 'input_text', text: text(m) }],
              },
            ]
      return [...said, ...calls]
    })
    const { translation, capsule } = await responsesTranslation(
      ResponsesRequestSchema.parse({ model: 'echo', input }),
      new MediaIntake(),
    )
    return { ...(await plainDoor(translation, input)), capsule }
  },
}

/**
 * A door turn through the object, the way a client makes them: it sends only the new message, or
 * its last `history.length` messages and it (the history kept up to date here, as a client would).
 */
function doorTurns(c: BenchContext, history: ChatMessageInput[], door: keyof typeof DOORS) {
  const keep = history.length
  return async (i: number) => {
    history.push({ role: 'user', content: message(i) })
    const input = await DOORS[door](history.slice(-(keep + 1)))
    const request = { ...input.request, compaction: compactionOf(c) }
    const text = await new Response(await sessionOf(c).door(addressOf(c), { ...input, request })).text()
    const done = text.indexOf('{"type":"done"}\n')
    if (done < 0) throw new Error(`${door} door: ${text.slice(0, 300)}`)
    const answer = JSON.parse(text.slice(text.indexOf('\n', done) + 1)) as { reply: { message: { content: string } } }
    history.push({ role: 'assistant', content: answer.reply.message.content })
  }
}

/** The view's newest turn: its user message and its last event (what a rewind takes off, and brings back). */
async function newestTurnOf(c: BenchContext): Promise<{ question: string; tip: string }> {
  const { events } = JSON.parse(await answerText(sessionOf(c).readView())) as {
    events: { id: string; synthetic: boolean; message: { role: string } }[]
  }
  const question = events.findLast((event) => event.message.role === 'user' && !event.synthetic)
  if (!question) throw new Error('the view has no turn')
  return { question: question.id, tip: events.at(-1)!.id }
}

/** A rewind to before the newest turn, then one back to its tip: two REWINDs, the view as it was. */
function rewindAndBack(c: BenchContext) {
  const turn = newestTurnOf(c)
  return async () => {
    const { question, tip } = await turn
    for (const point of [
      { to: question, position: 'before' as const },
      { to: tip, position: 'at' as const },
    ]) {
      type Answer = { ok: true; value: { rewind: unknown } } | { ok: false; error: unknown }
      const outcome = (await sessionOf(c).rewind(point)) as Answer
      if (!outcome.ok) throw new Error(`rewind: ${JSON.stringify(outcome.error)}`)
      if (outcome.value.rewind === null) throw new Error('rewind: the view did not change')
    }
  }
}

/** A regenerate through the object: the newest turn answered again (model = the local stub). */
async function regenerateTurn(c: BenchContext): Promise<void> {
  const text = await turnText(c, { regenerate: true, compaction: false })
  if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
}

/** A chat-completions request editing the newest question: `history` is what came before it, as the client was shown it. */
function doorRewinds(c: BenchContext, history: ChatMessageInput[]) {
  return async (i: number) => {
    const messages: ChatMessageInput[] = [...history, { role: 'user', content: `edited ${i}` }]
    const input = await plainDoor(await chatCompletionTranslation({ model: 'echo', messages }, new MediaIntake()), messages)
    const text = await new Response(await sessionOf(c).door(addressOf(c), { ...input, onDiverge: 'rewind' })).text()
    if (!text.includes('{"type":"rewound"')) throw new Error(`door rewind: ${text.slice(0, 300)}`)
  }
}

/** A GET of the session through the whole app, the request limit on (a huge limit: always admitted) or off. */
async function limitedGet(c: BenchContext, on: boolean): Promise<void> {
  const headers = { Authorization: c.req.header('Authorization') ?? '' }
  const env = { ...c.env, RATE_LIMIT_REQUESTS: on ? '1000000000' : '0' }
  const response = await app.fetch(
    new Request(`http://bench/v1/sessions/${query(c, 'session')}`, { headers }),
    env,
    c.executionCtx,
  )
  if (!response.ok) throw new Error(await response.text())
  await response.arrayBuffer()
}

/** Sessions the one tenant reads, and a share no measurement uses up. */
const TENANT_SESSIONS = 16
const UNLIMITED = Number.MAX_SAFE_INTEGER

type TenantPath = 'off' | 'one' | 'shards' | 'rpc'

/**
 * One user's requests, `inFlight` at a time, as requests per second: GETs of 16 sessions through
 * the whole app with the request limit off, counted in one object for every request (the design
 * before the shards: one RPC to the same object each), or in the user's 16 shards (a limit of
 * 1e9 a minute, never reached); or only the counting RPC to one object (what one object sustains).
 */
async function oneTenant(c: BenchContext, path: TenantPath, total: number, inFlight: number): Promise<number> {
  const headers = { Authorization: c.req.header('Authorization') ?? '' }
  const env = { ...c.env, RATE_LIMIT_REQUESTS: path === 'shards' ? '1000000000' : '0' }
  const oneObject = c.env.REQUEST_SHARDS.getByName(`one-object-${query(c, 'run')}`)
  for (let k = 0; k < TENANT_SESSIONS; k++) {
    const body = JSON.stringify({ events: [{ message: { role: 'user', content: `tenant session ${k}` } }] })
    const init = { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body }
    await app.fetch(new Request(`http://bench/v1/sessions/tenant-${k}/events`, init), env, c.executionCtx)
  }
  const request = async (i: number) => {
    if (path === 'one' || path === 'rpc') await oneObject.admit(UNLIMITED)
    if (path === 'rpc') return
    const url = `http://bench/v1/sessions/tenant-${i % TENANT_SESSIONS}`
    const response = await app.fetch(new Request(url, { headers }), env, c.executionCtx)
    if (!response.ok) throw new Error(await response.text())
    await response.arrayBuffer()
  }
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = next++; i < total; i = next++) await request(i)
    }),
  )
  return total / ((performance.now() - started) / 1000)
}

/** A whole `/turns` turn through the app, as a request reaches it: auth, routing, validation, the RPC, the answer's JSON. */
async function turnViaApp(c: BenchContext, i: number): Promise<void> {
  const headers = { Authorization: c.req.header('Authorization') ?? '', 'Content-Type': 'application/json' }
  const body = JSON.stringify({ content: message(i), compaction: compactionOf(c) })
  const url = `http://bench/v1/sessions/${query(c, 'session')}/turns`
  const response = await app.fetch(new Request(url, { method: 'POST', headers, body }), c.env, c.executionCtx)
  if (!response.ok) throw new Error(await response.text())
  await response.arrayBuffer()
}

/** The auth middleware alone, on a route that answers at once (the same route without it is taken off by the caller). */
type AuthOnlyEnv = { Bindings: BenchEnv; Variables: { userId: string } }
const authOnly = new Hono<AuthOnlyEnv>()
  .use(
    '/with',
    bearerJwt<AuthOnlyEnv>((c) => authConfigOf(c.env)),
  )
  .get('/with', (c) => c.text(c.get('userId')))
  .get('/without', (c) => c.text(''))

async function authCheck(c: BenchContext, withAuth: boolean): Promise<void> {
  const headers = { Authorization: c.req.header('Authorization') ?? '' }
  const response = await authOnly.fetch(new Request(`http://bench/${withAuth ? 'with' : 'without'}`, { headers }), c.env)
  if (!response.ok) throw new Error(await response.text())
  await response.arrayBuffer()
}

/** A compaction pass keeping the last `keep` events, which must cut. */
async function compactionPass(c: BenchContext, keep: number): Promise<void> {
  const text = await answerText(sessionOf(c).compact({ strategy: { window: { lastEvents: keep } } }))
  if (!text.startsWith('{"unchanged":false')) throw new Error(text.slice(0, 300))
}

/** An RPC method's outcome, as the session object answers it. */
type Answered<T> = { ok: true; value: T } | { ok: false; error: unknown }

/** The value of an RPC outcome; its error thrown. */
function outcomeValue<T>(what: string, outcome: unknown): T {
  const answered = outcome as Answered<T>
  if (!answered.ok) throw new Error(`${what}: ${JSON.stringify(answered.error)}`)
  return answered.value
}

/**
 * `batch` calls of `work`, each after `before` and followed by `after` (both untimed): the mean of
 * their times, and the session object's rows of each summed and divided per call.
 */
async function timedEach<P, R>(
  c: BenchContext,
  batch: number,
  steps: { before: () => Promise<P>; work: (prepared: P) => Promise<R>; after?: (result: R) => Promise<unknown> },
): Promise<Measured> {
  let total = 0
  const rows: RowCounts = { rowsRead: 0, rowsWritten: 0 }
  for (let b = 0; b < batch; b++) {
    const prepared = await steps.before()
    const [[ms, result], taken] = await withRows(sessionOf(c), async () => {
      const start = performance.now()
      const result = await steps.work(prepared)
      return [performance.now() - start, result] as const
    })
    await steps.after?.(result)
    total += ms
    rows.rowsRead += taken.rowsRead
    rows.rowsWritten += taken.rowsWritten
  }
  return { samples: [total / batch], rows: { rowsRead: rows.rowsRead / batch, rowsWritten: rows.rowsWritten / batch } }
}

/**
 * Forks of the session's view now, timed; rows per fork: the source's, and the fork's own object
 * writing the view's events; each fork deleted afterwards, untimed.
 */
async function forksOf(c: BenchContext): Promise<Measured> {
  const [source, user, forks] = [sessionOf(c), query(c, 'user'), [] as string[]]
  const [samples, rows] = await withRows(source, () =>
    timed(numberOf(c, 'runs'), numberOf(c, 'batch'), async (i) => {
      const id = `${query(c, 'session')}-fork-${i}-${crypto.randomUUID()}`
      forks.push(id)
      outcomeValue('fork', await source.fork({ userId: user, sessionId: id }, {}))
    }),
  )
  for (const id of forks) {
    const fork = sessionStub(c.env, user, id) as unknown as DurableObjectStub<BenchSessionObject>
    const own = await fork.takeRows()
    rows.rowsRead += own.rowsRead
    rows.rowsWritten += own.rowsWritten
    outcomeValue('destroy', await fork.destroy())
  }
  return { samples, rows: { rowsRead: rows.rowsRead / forks.length, rowsWritten: rows.rowsWritten / forks.length } }
}

/** The view length {@link onFixedView} gives a session. */
const FIXED_VIEW = 100

/**
 * Runs `measure` on a view of the session's last {@link FIXED_VIEW} events, the same at every
 * size and in every run (what a fork, an undo or a pass costs follows the view): an untimed pass
 * keeps them first, and is undone after, the view put back as it was.
 */
async function onFixedView<T>(c: BenchContext, measure: () => Promise<T>): Promise<T> {
  const text = await answerText(sessionOf(c).compact({ strategy: { window: { lastEvents: FIXED_VIEW } } }))
  const pass = JSON.parse(text) as { boundary: { id: string } | null }
  try {
    return await measure()
  } finally {
    if (pass.boundary) outcomeValue('undo', await sessionOf(c).undo(pass.boundary.id, {}))
  }
}

/** `batch` undos of a pass, each pass made just before it (untimed): the view as it was, twice over. */
const undos = (c: BenchContext, batch: number) =>
  timedEach(c, batch, {
    async before() {
      const pass = JSON.parse(await answerText(sessionOf(c).compact({ strategy: { window: { lastEvents: 20 } } }))) as {
        boundary: { id: string } | null
      }
      if (!pass.boundary) throw new Error('undo: the pass wrote no boundary')
      return pass.boundary.id
    },
    work: async (passId: string) => outcomeValue('undo', await sessionOf(c).undo(passId, {})),
  })

/**
 * `batch` compactions a Responses client asks for (`/v1/responses/compact` with no new item: a
 * pass with its summary, the capsule answered), timed; each undone after, untimed, so that every
 * one has the same view to compact. Its pass takes the session's strategy: the session keeps its
 * last 20 events meanwhile (its own policy put back after; a trigger that never fires).
 */
async function responsesCompactions(c: BenchContext, batch: number): Promise<Measured> {
  const items = [{ type: 'compaction_trigger' }]
  const { translation, capsule } = await responsesTranslation(
    ResponsesRequestSchema.parse({ model: 'echo', input: items }),
    new MediaIntake(),
  )
  const input = { ...(await plainDoor(translation, items)), capsule }
  const { policy } = outcomeValue<{ policy: unknown }>('get', await sessionOf(c).get())
  const keepTwenty = { trigger: { turnCount: 1_000_000 }, strategy: { window: { lastEvents: 20 } } }
  outcomeValue('patch', await sessionOf(c).patch({ policy: keepTwenty } as never))
  const DONE = '{"type":"done"}\n'
  try {
    return await timedEach(c, batch, {
      before: async () => input,
      work: async (door: DoorRequest) => new Response(await sessionOf(c).doorCompaction(addressOf(c), door)).text(),
      async after(text: string) {
        const done = text.indexOf(DONE)
        if (done < 0) throw new Error(`responses compaction: ${text.slice(0, 300)}`)
        const { eventId } = JSON.parse(text.slice(done + DONE.length)) as { eventId: string }
        outcomeValue('undo', await sessionOf(c).undo(eventId, {}))
      },
    })
  } finally {
    outcomeValue('patch', await sessionOf(c).patch({ policy } as never))
  }
}

/** An export's first page: its first `lines` lines of jsonl, the rest cancelled. */
async function exportPage(c: BenchContext, lines: number): Promise<void> {
  const body = outcomeValue<JsonBody>('export', await sessionOf(c).exportSession('jsonl'))
  const reader = (typeof body === 'string' ? new Response(body).body! : body).getReader()
  let seen = 0
  while (seen < lines) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`export: ${seen} lines, fewer than ${lines}`)
    for (const byte of value) if (byte === 10) seen++
  }
  await reader.cancel()
}

/** The pass a prepared summary is timed for: the view but its last 4 turns behind a summary of the configured summary model. */
const PREPARED_PASS = { window: { lastTurns: 4 }, summarizer: {} }
/** The tool groups of each loop turn an in-turn pass is measured on: all but the newest covered. */
const IN_TURN_GROUPS = 4
let loopTurns = 0

/**
 * `batch` passes inside the newest turn (see `BenchSessionObject.inTurnPass`), each on a loop turn
 * appended just before it (untimed): a question and {@link IN_TURN_GROUPS} tool groups of ~1 KB
 * results. Timed one at a time around the RPC; the session object's rows per pass.
 */
function inTurnPasses(c: BenchContext, batch: number): Promise<Measured> {
  return timedEach(c, batch, {
    async before() {
      const turn = `${thisRun()}-${loopTurns++}`
      const groups = Array.from({ length: IN_TURN_GROUPS }, (_, g): AppendInput[] => {
        const id = `it${turn}-${g}`
        return [
          { message: { role: 'assistant', content: null, toolCalls: [{ id, name: 'read_file', arguments: `{"g":${g}}` }] } },
          {
            message: {
              role: 'tool',
              content: null,
              toolResponses: [{ id, name: 'read_file', data: loopResult(g).slice(0, 1024) }],
            },
          },
        ]
      })
      const question: AppendInput = { message: { role: 'user', content: `Read the files, turn ${turn}.` } }
      await succeeded(sessionOf(c).append(addressOf(c), [question, ...groups.flat()]))
    },
    work: () => sessionOf(c).inTurnPass(),
  })
}

/** A bearer token of the route's `user`, made once. */
const tokens = new Map<string, Promise<string>>()
const tokenOf = (c: BenchContext) => {
  const user = query(c, 'user')
  if (!tokens.has(user))
    tokens.set(user, sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, c.env.JWT_SECRET!, 'HS256'))
  return tokens.get(user)!
}

/** A ranked search across the user's sessions (`GET /v1/search`, mode auto) through the app: its answer read whole. */
async function searchAcross(c: BenchContext, q: string): Promise<void> {
  const headers = { Authorization: `Bearer ${await tokenOf(c)}` }
  const url = `http://bench/v1/search?q=${encodeURIComponent(q)}`
  const response = await app.fetch(new Request(url, { headers }), c.env, c.executionCtx)
  const text = await response.text()
  if (!response.ok || !text.includes('"hits":[{')) throw new Error(`search across: ${response.status} ${text.slice(0, 300)}`)
}

/** The view through RPC, its answer read to the end, as the Worker passes it on. */
const viewOverRpc = async (c: BenchContext) => (await answerText(sessionOf(c).readView())).length

/** The first view read of a fresh instance. */
async function coldView(c: BenchContext): Promise<number> {
  await sessionOf(c)
    .restart()
    .catch(() => undefined) // the object ends mid-call: that is the point
  return sessionOf(c).viewInside()
}

/** A turn's storage work through RPC, as the object's callers do it: two appends and a view read. */
async function appendAndView(c: BenchContext, i: number): Promise<number> {
  const [user, reply] = turnAppends(i, 'turn')
  await succeeded(sessionOf(c).append(addressOf(c), user))
  await succeeded(sessionOf(c).append(addressOf(c), reply))
  return viewOverRpc(c)
}

/** The search the route makes: all scopes, 20 hits with their events. */
const searchQuery = (c: BenchContext) => ({
  q: query(c, 'q'),
  // Every word (the peer's search, and the figures before modes), unless the route says.
  mode: (c.req.query('mode') ?? 'all') as 'all' | 'any' | 'auto',
  limit: 20,
  scope: 'all' as const,
  branches: 'lineage' as const,
  from: SEARCH_START,
})

const storageWorkOf = (c: BenchContext): StorageWork => (query(c, 'work') === 'tool' ? 'tool' : 'turn')

/** The bench-only routes: one a measurement, answering {@link Measured}, and the peer's setup. */
const bench = new Hono<{ Bindings: BenchEnv }>()
bench.onError((error, c) => c.text(error.stack ?? String(error), 500))
bench.get('/view/in-object', (c) => sampled(c, () => sessionOf(c).viewInside()))
bench.get('/view/rpc', (c) => sampled(c, () => viewOverRpc(c)))
bench.get('/view/naive', (c) => sampled(c, () => sessionOf(c).naiveView()))
bench.get('/view/cold', (c) => sampled(c, () => coldView(c)))
bench.get('/append-view', (c) => sampled(c, (i) => appendAndView(c, i)))
bench.get('/turn', (c) => sampled(c, (i) => chatTurn(c, i)))
bench.get('/turn-rows', async (c) => {
  const [, rows] = await withRows(sessionOf(c), () => chatTurn(c, 0))
  return c.json<Measured>({ samples: [], rows })
})
bench.get('/tool-continuation', async (c) => c.json(await continuations(c, numberOf(c, 'batch'))))
bench.post('/door', async (c) => {
  const door = query(c, 'door') as keyof typeof DOORS
  if (!(door in DOORS)) throw new Error(`no door "${door}"`)
  const turn = doorTurns(c, (await c.req.json<{ history: ChatMessageInput[] }>()).history, door)
  const samples = await timed(numberOf(c, 'runs'), numberOf(c, 'batch'), turn)
  // The rows of one more such turn, counted outside the timed ones.
  const [, rows] = await withRows(sessionOf(c), () => turn(calls++))
  return c.json<Measured>({ samples, rows })
})
bench.get('/rewind-and-back', (c) => sampledWithRows(c, sessionOf(c), rewindAndBack(c)))
bench.get('/regenerate', async (c) => {
  // A turn with a reply to regenerate, untimed (a freshly seeded log may end with a question).
  await turnText(c, { content: 'a question to answer again', compaction: false })
  return sampledWithRows(c, sessionOf(c), () => regenerateTurn(c))
})
bench.post('/door-rewind', async (c) => {
  const history = (await c.req.json<{ history: ChatMessageInput[] }>()).history
  return onFixedView(c, async () => {
    // Two turns after the pass, untimed: editing the second goes back to the first's reply, which
    // comes after the pass, so the view the edit runs on is the fixed one.
    const [first, second] = ['first after the pass', 'second after the pass']
    for (const content of [first, second]) {
      const text = await turnText(c, { content, compaction: false })
      if (!text.includes(`Echo: ${content}`)) throw new Error(`door rewind: ${text.slice(0, 300)}`)
    }
    const shown = [...history, { role: 'user', content: first }, { role: 'assistant', content: `Echo: ${first}` }]
    return sampledWithRows(c, sessionOf(c), doorRewinds(c, shown as ChatMessageInput[]))
  })
})
bench.get('/fork', async (c) => c.json(await onFixedView(c, () => forksOf(c))))
bench.get('/undo', async (c) => c.json(await onFixedView(c, () => undos(c, numberOf(c, 'batch')))))
bench.get('/responses-compaction', async (c) => c.json(await onFixedView(c, () => responsesCompactions(c, numberOf(c, 'batch')))))
bench.get('/export-page', (c) => sampledWithRows(c, sessionOf(c), () => exportPage(c, numberOf(c, 'lines'))))
bench.get('/search', (c) => sampledWithRows(c, sessionOf(c), () => answerText(sessionOf(c).search(searchQuery(c)))))
// The same searches, ours and the peer's, timed inside each object (no RPC around each).
bench.get('/search-inside', async (c) => c.json(await sessionOf(c).searchInside(searchQuery(c), numberOf(c, 'batch'))))
bench.get('/peer/search-inside', async (c) => c.json(await peerOf(c).searchInside(query(c, 'q'), numberOf(c, 'batch'))))
bench.get('/in-turn-pass', async (c) => c.json(await inTurnPasses(c, numberOf(c, 'batch'))))
// A compaction answered from a prepared summary: each after the session is taken back to `base` and its summary prepared (untimed).
bench.get('/prepared-pass', async (c) =>
  c.json(
    await timedEach(c, numberOf(c, 'batch'), {
      async before() {
        await succeeded(sessionOf(c).rewind({ to: query(c, 'base'), position: 'at' }))
        await sessionOf(c).preparePass()
      },
      work: () => sessionOf(c).preparedPass(),
    }),
  ),
)
// The user's search shards' rows (the sessions that hold the hits read them too: not counted here).
// One search across sessions, then the rows each statement of each of the user's shards read for it.
// The rows each statement of the session object read and wrote since the last call.
bench.get('/statements', async (c) => c.json(await sessionOf(c).takeStatements()))
bench.get('/search-across/statements', async (c) => {
  const { shards } = acrossSessions(c.env)
  const stubs = Array.from(
    { length: shards },
    (_, shard) => searchShardStub(c.env, query(c, 'user'), shards, shard) as unknown as DurableObjectStub<SearchShard>,
  )
  for (const stub of stubs) await stub.takeStatements()
  await searchAcross(c, query(c, 'q'))
  return c.json(await Promise.all(stubs.map((stub) => stub.takeStatements())))
})
bench.get('/search-across', (c) => sampledWithRows(c, userShards(c.env, query(c, 'user')), () => searchAcross(c, query(c, 'q'))))
bench.get('/context', (c) => sampledWithRows(c, sessionOf(c), () => succeeded(sessionOf(c).context())))
bench.get('/limited-get', (c) => sampled(c, () => limitedGet(c, query(c, 'on') === '1')))
bench.get('/compact', (c) => sampled(c, () => compactionPass(c, numberOf(c, 'keep'))))
bench.get('/turn-app', (c) => sampled(c, (i) => turnViaApp(c, numberOf(c, 'from') + i)))
bench.get('/turn-inside', async (c) =>
  c.json(await sessionOf(c).turnsInside(addressOf(c), numberOf(c, 'batch'), numberOf(c, 'from'), compactionOf(c))),
)
bench.post('/upstream-bare', async (c) =>
  c.json(
    await sessionOf(c).bareUpstreamCalls(numberOf(c, 'batch'), JSON.stringify((await c.req.json<{ body: unknown }>()).body)),
  ),
)
bench.get('/ping', (c) => sampled(c, () => sessionOf(c).ping()))
bench.get('/floor-turn', (c) => sampled(c, (i) => sessionOf(c).floorTurn(addressOf(c), numberOf(c, 'from') + 2 * i)))
bench.get('/auth', (c) => sampled(c, () => authCheck(c, query(c, 'with') === '1')))
bench.get('/one-tenant', async (c) =>
  c.json<Measured>({
    samples: [await oneTenant(c, query(c, 'path') as TenantPath, numberOf(c, 'total'), numberOf(c, 'inFlight'))],
  }),
)
bench.get('/request-shard', async (c) =>
  c.json(
    await (
      c.env.REQUEST_SHARDS.getByName(`timed-${query(c, 'run')}`) as unknown as DurableObjectStub<BenchRequestShard>
    ).admissions(numberOf(c, 'batch')),
  ),
)
bench.get('/storage-turns', async (c) =>
  c.json(await sessionOf(c).storageTurns(addressOf(c), numberOf(c, 'batch'), numberOf(c, 'from'), storageWorkOf(c))),
)
bench.get('/floor-turns', async (c) => c.json(await sessionOf(c).floorTurns(numberOf(c, 'batch'), numberOf(c, 'from'))))
bench.get('/estimates', async (c) => c.json(await sessionOf(c).estimates()))
bench.get('/peer/storage-turns', async (c) =>
  c.json(await peerOf(c).storageTurns(numberOf(c, 'batch'), numberOf(c, 'from'), storageWorkOf(c))),
)
// Timed as ours is: around the RPC, from the bench Worker.
bench.get('/peer/search', (c) => sampledWithRows(c, peerOf(c), () => peerOf(c).search(query(c, 'q'))))
bench.get('/peer/seed', async (c) => c.json(await peerOf(c).seed(numberOf(c, 'count'), numberOf(c, 'from'))))
bench.get('/peer/size', async (c) => c.json(await peerOf(c).size()))
bench.get('/peer/overlay', async (c) => {
  await peerOf(c).overlay(numberOf(c, 'upTo'))
  return c.json({ ok: true })
})

/** The bench routes under /bench, the real app for everything else. */
const worker = new Hono<{ Bindings: BenchEnv }>()
bench.route('/memory', memoryBench)
bench.route('/mcp', mcpBench)
bench.route('/media', mediaBench)
bench.route('/loops', loopsBench)
worker.route('/bench', bench)
worker.all('*', (c) => app.fetch(c.req.raw, c.env, c.executionCtx))

/** The model request as the bare proxies send it on. */
const proxied = (env: BenchEnv, body: BodyInit | null) =>
  fetch(`${env.OPENAI_BASE_URL}/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })

/** A model request through {@link ObjectProxy}, its answer streamed back as the upstream's. */
async function objectProxied(request: Request, env: BenchEnv): Promise<Response> {
  const stream = await env.OBJECT_PROXY.getByName('floor').proxy(await request.text())
  return new Response(stream, { headers: { 'Content-Type': 'text/event-stream' } })
}

/** A model request relayed through {@link ObjectProxy} in the service's own frames, answered as `/turns` streams its deltas. */
const objectRelay = new Hono<{ Bindings: BenchEnv }>().post('/object-relay', async (c) => {
  const { messages } = await c.req.json<{ messages: OpenAIMessage[] }>()
  const answer = await readTurnAnswer(c.env.OBJECT_PROXY.getByName('floor').relay(messages))
  return answer.stream(c, TURN_EVENTS)
})

/**
 * The first-byte floor for a Worker that keeps its state in a Durable Object: the object does
 * nothing but pass the model request on to the upstream and stream its answer back over the RPC.
 */
export class ObjectProxy extends DurableObject<BenchEnv> {
  async proxy(body: string): Promise<ReadableStream<Uint8Array>> {
    const response = await proxied(this.env, body)
    if (!response.body) throw new Error(`the upstream answered ${response.status} without a body`)
    return response.body
  }

  /**
   * The service's streaming alone: the model called through its adapter (the stream parsed as a
   * turn parses it), each delta sent as a turn's frame, the frames read back in the Worker and
   * written as `/turns` writes them; no auth, validation, session, prompt or write.
   */
  relay(messages: OpenAIMessage[]): ReadableStream<Uint8Array> {
    const frames = frameWriter()
    const model = openAICompatible({ baseUrl: this.env.OPENAI_BASE_URL!, timeoutMs: 30_000 })
    model.chat({ model: 'echo', messages, maxTokens: 1024, onDelta: (text) => frames.send({ type: 'delta', text }) }).then(
      () => frames.finish(['{}']),
      (error) => {
        frames.send({ type: 'error', error: { code: 'internal', message: String(error) } })
        frames.close()
      },
    )
    return frames.readable
  }
}

/**
 * The bench Worker: before anything else, `/bare-proxy` is a bare Worker that only passes a model
 * request on to the upstream and its answer back (the first-byte floor for any Worker),
 * `/object-proxy` the same through a Durable Object ({@link ObjectProxy}: the floor for a Worker
 * with an object in the path), `/object-relay` the same object relaying the stream in the
 * service's own frames and `/turns` events (the floor for streaming them), and `/bare-answer`
 * one that answers at once (what the dev server's round trip costs by itself).
 */
export default {
  fetch(request: Request, env: BenchEnv, ctx: ExecutionContext): Response | Promise<Response> {
    const { pathname } = new URL(request.url)
    if (pathname === '/bare-answer') return new Response('answered')
    if (pathname === '/bare-proxy') return proxied(env, request.body)
    if (pathname === '/object-proxy') return objectProxied(request, env)
    if (pathname === '/object-relay') return objectRelay.fetch(request, env, ctx)
    return worker.fetch(request, env, ctx)
  },
} satisfies ExportedHandler<BenchEnv>
