/**
 * The Worker the benchmarks run: the real app and Durable Objects, plus bench-only routes that
 * time work inside workerd (so the local dev server's proxy is not in the numbers), a naive
 * baseline, and the closest peer on this platform (the Agents SDK's session storage).
 */
import { DurableObject } from 'cloudflare:workers'
import { Lifecycle } from 'agents/lifecycle'
import { Sessions } from 'agents/sessions'
import { SEARCH_START } from '../src/contract/schemas'
import { countingEstimator, defaultEstimator, ftsExpression, project } from '../src/core'
import { chatCompletionInput } from '../src/doors/chat-completions/request'
import { app } from '../src/http/app'
import { sessionStub } from '../src/object/address'
import { SessionObject } from '../src/object/session-object'
import { NO_TURN_LIMITS } from '../src/rate-limits'
import { SessionLog } from '../src/store/session/log'
import { Sql } from '../src/store/sql'

export { UserIndex } from '../src/object/user-index'

/** Rows read and written by every statement a Durable Object runs, counted at `ctx.storage.sql.exec`. */
function countRows(storage: DurableObjectStorage) {
  const sql = storage.sql
  const exec = sql.exec.bind(sql)
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = []
  sql.exec = ((query: string, ...bindings: unknown[]) => {
    const cursor = exec(query, ...bindings)
    cursors.push(cursor)
    return cursor
  }) as typeof sql.exec
  return {
    /** The rows read and written since the last call. */
    take(): { rowsRead: number; rowsWritten: number } {
      const taken = cursors.splice(0)
      // A cursor's counts are final once it is done: a write whose cursor nobody iterated reports 0 until then.
      for (const cursor of taken) for (const _ of cursor);
      return { rowsRead: taken.reduce((n, c) => n + c.rowsRead, 0), rowsWritten: taken.reduce((n, c) => n + c.rowsWritten, 0) }
    },
  }
}

/**
 * Times `batch` runs of `work` inside an object. Its clock moves only at I/O, so the batch is
 * bracketed by a 1 ms timer; the same bracket around no work is measured and taken off.
 */
async function timedInside(batch: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const bracket = async (fn: () => Promise<void>) => {
    await scheduler.wait(1)
    const start = performance.now()
    await fn()
    await scheduler.wait(1)
    return performance.now() - start
  }
  const empty = await bracket(async () => {})
  const full = await bracket(async () => {
    for (let i = 0; i < batch; i++) await work(i)
  })
  return Math.max(0, full - empty) / batch
}

export interface StorageTurnSample {
  ms: number
  rowsRead: number
  rowsWritten: number
}

/** The session object, with what a benchmark needs to look inside it. */
/** Generates a whole JSON answer, as a reader taking all of it would; answers its length. */
const drain = (pieces: Iterable<string>): number => {
  let chars = 0
  for (const piece of pieces) chars += piece.length
  return chars
}
const drainText = async (pieces: Iterable<string>): Promise<string> => [...pieces].join('')

export class BenchSessionObject extends SessionObject {
  /** Every estimate of this isolate's sessions, counted. */
  static override readonly estimator = countingEstimator(defaultEstimator)
  private readonly rows: ReturnType<typeof countRows>

  constructor(ctx: DurableObjectState, env: Env) {
    const rows = countRows(ctx.storage)
    super(ctx, env)
    this.rows = rows
  }

  /** The view the naive way: the whole log read and projected on every call. */
  naiveView(): number {
    return project(new SessionLog(new Sql(this.ctx.storage.sql)).after(0)).length
  }

  /** The view read inside the object (what a view read costs before its answer travels back). */
  async fastView(): Promise<number> {
    return drain(this.stored.answers.viewOf(await this.stored.existing(), 'events'))
  }

  /** Ends this object's instance: the next call starts a fresh one, as after an eviction. */
  restart(): void {
    this.ctx.abort('benchmark: start cold')
  }

  /**
   * One turn's storage work, the way the peer's is measured: two appends and a view read, inside
   * the object, with the rows they read and wrote.
   */
  async storageTurns(
    batch: number,
    from: number,
    withoutSearch = false,
    work: 'turn' | 'tool' = 'turn',
  ): Promise<StorageTurnSample> {
    const address = { userId: 'bench', sessionId: this.stored.info().id }
    // Bench only: the same work with the search index's inserts left out, to see what they cost.
    const search = (this.stored as unknown as { indexes: { search: { index: (events: unknown) => void } } }).indexes.search
    const index = search.index
    if (withoutSearch) search.index = () => undefined
    try {
      return await this.timedStorageTurns(address, batch, from, work)
    } finally {
      search.index = index
    }
  }

  private async timedStorageTurns(
    address: { userId: string; sessionId: string },
    batch: number,
    from: number,
    work: 'turn' | 'tool',
  ) {
    const stored = this.stored.addressedAs(address)
    const append = (...messages: Record<string, unknown>[]) =>
      stored.appendInputs(messages.map((message) => ({ message }) as never))
    this.rows.take()
    const ms = await timedInside(batch, async (i) => {
      const at = from + 2 * i
      const user = { role: 'user', content: message(at) }
      const reply = { role: 'assistant', content: message(at + 1) }
      if (work === 'tool') {
        // An agent turn as the peer's (toolStep), in the two appends a turn and its continuation make.
        const call = { id: `k${thisRun()}-${at}`, name: 'lookup', arguments: JSON.stringify({ q: message(at) }) }
        const result = { id: call.id, name: 'lookup', data: `result ${at}: `.repeat(20) }
        await append(user, { role: 'assistant', content: null, toolCalls: [call] })
        await append({ role: 'tool', content: null, toolResponses: [result] }, reply)
      } else {
        await append(user)
        await append(reply)
      }
      drain(this.stored.answers.viewOf(await this.stored.existing(), 'events'))
    })
    const { rowsRead, rowsWritten } = this.rows.take()
    return { ms, rowsRead: rowsRead / batch, rowsWritten: rowsWritten / batch }
  }

  /**
   * The raw-SQLite floor of one turn's storage work, inside the object: two plain inserts of the
   * turn's messages and a read of the view's rows by seq, nothing else (no checks, no counters, no
   * index, no JSON made). What {@link storageTurns} is measured against.
   */
  async floorTurns(batch: number, from: number): Promise<StorageTurnSample> {
    const sql = this.ctx.storage.sql
    sql.exec('CREATE TABLE IF NOT EXISTS floor_events (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const seqs = JSON.stringify(
      (
        JSON.parse(await drainText(this.stored.answers.viewOf(await this.stored.existing(), 'events'))) as {
          events: { seq: number }[]
        }
      ).events.map((event) => event.seq),
    )
    this.rows.take()
    const ms = await timedInside(batch, async (i) => {
      for (const role of ['user', 'assistant'])
        sql.exec('INSERT INTO floor_events (body) VALUES (?)', JSON.stringify({ role, content: message(from + 2 * i) }))
      sql.exec('SELECT * FROM events WHERE seq IN (SELECT value FROM json_each(?))', seqs).toArray()
    })
    const { rowsRead, rowsWritten } = this.rows.take()
    return { ms, rowsRead: rowsRead / batch, rowsWritten: rowsWritten / batch }
  }

  /** Rows read and written by the calls since the last one (for a whole turn through RPC). */
  takeRows(): { rowsRead: number; rowsWritten: number } {
    return this.rows.take()
  }

  /** Token estimates computed in this isolate so far, and the messages in this object's log. */
  estimates(): { calls: number; messages: number } {
    const messages = this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM events WHERE type = 'MESSAGE'").one().n
    return { calls: BenchSessionObject.estimator.calls, messages }
  }
}

type Part = { type: 'text'; text: string }

/** The Agents SDK's session storage on a plain Durable Object, as its docs install it. */
export class AgentsPeer extends DurableObject<Env> {
  private readonly rows: ReturnType<typeof countRows>
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

  /** Imports `count` messages (user/assistant alternating) as history. */
  async seed(count: number, from: number): Promise<number> {
    let parent = (await this.session.getLatestLeaf())?.id ?? null
    for (let i = from; i < from + count; i++) {
      const id = `m${i}`
      await this.session.importMessage(
        { id, role: i % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', text: message(i) }] as Part[] },
        { parentId: parent, createdAt: Date.now() },
      )
      parent = id
    }
    return from + count
  }

  /** How many messages the history holds. */
  async size(): Promise<number> {
    const sql = this.ctx.storage.sql
    const table = sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'cf_agents_session_messages'").toArray()
    return table.length === 0 ? 0 : sql.exec<{ n: number }>('SELECT count(*) AS n FROM cf_agents_session_messages').one().n
  }

  /** One turn's storage work: the user message and the reply appended, then the bounded recent history read. */
  async turn(i: number): Promise<number> {
    // Ids new to this run: the peer skips a message whose id it has (the state is kept between runs).
    await this.session.appendMessage({ id: `t${thisRun()}-${i}u`, role: 'user', parts: [{ type: 'text', text: message(i) }] })
    await this.session.appendMessage({
      id: `t${thisRun()}-${i}a`,
      role: 'assistant',
      parts: [{ type: 'text', text: message(i + 1) }],
    })
    const recent = await this.session.getRecentHistory(64 * 1024)
    return recent.messages.length
  }

  /**
   * One agent turn's storage work, as the AI SDK's messages hold it: the user message and the
   * call appended (a tool part waiting for its output), the call's message updated with the
   * output, the reply appended, and the bounded recent history read back.
   */
  async toolStep(i: number): Promise<number> {
    const id = `t${thisRun()}-${i}`
    const call = { type: 'tool-lookup', toolCallId: `k${id}`, input: { q: message(i) } }
    await this.session.appendMessage({ id: `${id}u`, role: 'user', parts: [{ type: 'text', text: message(i) }] })
    await this.session.appendMessage({ id: `${id}c`, role: 'assistant', parts: [{ ...call, state: 'input-available' }] })
    await this.session.updateMessage({
      id: `${id}c`,
      role: 'assistant',
      parts: [{ ...call, state: 'output-available', output: `result ${i}: `.repeat(20) }],
    })
    await this.session.appendMessage({ id: `${id}a`, role: 'assistant', parts: [{ type: 'text', text: message(i + 1) }] })
    const recent = await this.session.getRecentHistory(64 * 1024)
    return recent.messages.length
  }

  /** The same turns (or tool steps), measured as ours are (see {@link BenchSessionObject.storageTurns}). */
  async storageTurns(batch: number, from: number, work: 'turn' | 'tool' = 'turn'): Promise<StorageTurnSample> {
    this.rows.take()
    const ms = await timedInside(batch, (i) => (work === 'tool' ? this.toolStep(from + 2 * i) : this.turn(from + 2 * i)))
    const { rowsRead, rowsWritten } = this.rows.take()
    return { ms, rowsRead: rowsRead / batch, rowsWritten: rowsWritten / batch }
  }

  /** A search (20 hits); answers how many it found. */
  async search(query: string): Promise<number> {
    return (await this.session.search(query, { limit: 20 })).length
  }

  /** Rows read and written by the calls since the last one. */
  takeRows(): { rowsRead: number; rowsWritten: number } {
    return this.rows.take()
  }

  /** A compaction overlay over the older half of the history. */
  async overlay(upTo: number): Promise<void> {
    await this.session.addCompaction('Summary of the earlier conversation.', 'm0', `m${Math.floor(upTo / 2)}`)
  }
}

/** This run of the benchmark Worker (random values cannot be made at global scope). */
let run: string | undefined
const thisRun = () => {
  run ??= crypto.randomUUID().slice(0, 8)
  return run
}

/** The one client tool the tool-loop benchmark offers. */
const TOOLS = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }]

const message = (i: number) => `Message ${i}: what did we decide about the rollout plan, and which items are still open?`

/**
 * Runs `fn` `runs` times inside the Worker and returns the mean duration (ms) of each run. The
 * clock here only moves with I/O and in whole milliseconds, so a run repeats `fn` `batch` times
 * and is divided by it.
 */
let op = 0
async function timed(runs: number, fn: (i: number) => Promise<unknown>, batch = 1): Promise<number[]> {
  const samples: number[] = []
  for (let run = 0; run < runs; run++) {
    const start = performance.now()
    for (let b = 0; b < batch; b++) await fn(op++)
    samples.push((performance.now() - start) / batch)
  }
  return samples
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url)
    if (!url.pathname.startsWith('/bench/')) return app.fetch(request, env, ctx)
    const q = (name: string) => url.searchParams.get(name) ?? ''
    const n = (name: string) => Number(q(name))
    const batch = Number(url.searchParams.get('batch') ?? 1)
    const session = () => sessionStub(env, q('user'), q('session')) as unknown as DurableObjectStub<BenchSessionObject>
    const peers = (env as unknown as { PEER: DurableObjectNamespace }).PEER
    const peer = () => peers.getByName(q('peer')) as unknown as DurableObjectStub<AgentsPeer>
    const address = () => ({ userId: q('user'), sessionId: q('session') })
    /** The view through RPC, its stream read to the end, as the Worker passes it on. */
    const rpcView = async () => {
      const view = await session().readView()
      if (!view.ok) throw new Error(view.error.message)
      return (await new Response(view.value).text()).length
    }
    switch (url.pathname) {
      case '/bench/view':
        return Response.json(
          await timed(
            n('runs'),
            () => {
              if (q('mode') === 'naive') return session().naiveView()
              return q('mode') === 'rpc' ? rpcView() : session().fastView()
            },
            batch,
          ),
        )
      case '/bench/cold-view':
        return Response.json(
          await timed(
            n('runs'),
            async () => {
              await session()
                .restart()
                .catch(() => undefined) // the object ends mid-call: that is the point
              return session().fastView()
            },
            batch,
          ),
        )
      case '/bench/append-view':
        // A turn's storage work through RPC, as the object's callers do it: two appends and a view read.
        return Response.json(
          await timed(
            n('runs'),
            async (i) => {
              await session().append(address(), [{ message: { role: 'user', content: message(i) } }])
              await session().append(address(), [{ message: { role: 'assistant', content: message(i + 1) } }])
              return rpcView()
            },
            batch,
          ),
        )
      case '/bench/turn':
        // A whole chat turn through the object (model = the local stub), its stream drained.
        return Response.json(
          await timed(
            n('runs'),
            async (i) => {
              const compaction = JSON.parse(q('compaction'))
              const stream = await session().turn(address(), { content: message(i), compaction }, NO_TURN_LIMITS)
              const text = await new Response(stream).text()
              if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
            },
            batch,
          ),
        )
      case '/bench/tool-continuation': {
        // A tool loop's second step: a turn whose reply calls a tool (untimed), then the
        // continuation with its result (timed), the whole turn stream drained each time.
        const samples: number[] = []
        const rows = { rowsRead: 0, rowsWritten: 0 }
        for (let run = 0; run < n('runs'); run++) {
          let total = 0
          for (let b = 0; b < batch; b++) {
            const id = await askForTool(op++)
            await session().takeRows()
            const start = performance.now()
            const text = await turnText({ toolResults: [{ id, data: 'the looked-up value' }] })
            total += performance.now() - start
            const taken = await session().takeRows()
            rows.rowsRead = taken.rowsRead
            rows.rowsWritten = taken.rowsWritten
            if (!text.includes('"status":"completed"')) throw new Error(text.slice(0, 300))
          }
          samples.push(total / batch)
        }
        return Response.json({ samples, rows })
      }
      case '/bench/front-door': {
        // A front-door turn through the object: the client sends only the new message, or its
        // last `history` messages (the body's, kept up to date here as a client would) and it.
        const body = (await request.json()) as { history: unknown[] }
        const history = body.history
        const keep = history.length
        const compaction = JSON.parse(q('compaction'))
        const turn = async (i: number) => {
          history.push({ role: 'user', content: message(i) })
          const sent = keep === 0 ? history.slice(-1) : history.slice(-(keep + 1))
          const input = await chatCompletionInput({ model: 'echo', messages: sent as never })
          const stream = await session().chatCompletion(
            address(),
            { ...input, request: { ...input.request, compaction } },
            NO_TURN_LIMITS,
          )
          const text = await new Response(stream).text()
          if (!text.startsWith('{"type":"done"}')) throw new Error(`front door: ${text.slice(0, 300)}`)
          const answer = JSON.parse(text.slice(text.indexOf('\n') + 1)) as { reply: { message: { content: string } } }
          history.push({ role: 'assistant', content: answer.reply.message.content })
        }
        const samples = await timed(n('runs'), turn, batch)
        // The rows of one more such turn, counted outside the timed ones.
        await session().takeRows()
        await turn(op++)
        const rows = await session().takeRows()
        return Response.json({ samples, rows })
      }
      case '/bench/search': {
        // A search through the object, as the route makes it (the query parsed to FTS5 first).
        const query = { expression: ftsExpression(q('q'))!, limit: 20, scope: 'all' as const, from: SEARCH_START }
        await session().takeRows()
        const samples = await timed(
          n('runs'),
          async () => {
            const result = await session().search(query)
            if (!result.ok) throw new Error(JSON.stringify(result.error))
            await new Response(result.value).text()
          },
          batch,
        )
        const rows = await session().takeRows()
        return Response.json({ samples, rows: { rowsRead: rows.rowsRead / (n('runs') * batch), rowsWritten: rows.rowsWritten } })
      }
      case '/bench/turn-rows': {
        // The rows one whole turn reads and writes (model = the local stub).
        await session().takeRows()
        const stream = await session().turn(
          address(),
          { content: message(0), compaction: JSON.parse(q('compaction')) },
          NO_TURN_LIMITS,
        )
        await new Response(stream).text()
        return Response.json(await session().takeRows())
      }
      case '/bench/context': {
        // GET /context's work through the object (read-only, O(view)), with its rows.
        await session().takeRows()
        const samples = await timed(
          n('runs'),
          async () => {
            const result = await session().context()
            if (!result.ok) throw new Error(JSON.stringify(result.error))
          },
          batch,
        )
        const rows = await session().takeRows()
        return Response.json({ samples, rows: { rowsRead: rows.rowsRead / (n('runs') * batch), rowsWritten: rows.rowsWritten } })
      }
      case '/bench/floor-turn':
        return Response.json(await session().floorTurns(batch, n('from')))
      case '/bench/limited-get': {
        // A GET through the whole app with the request limit on (a huge limit: always admitted) or off.
        const limit = q('on') === '1' ? '1000000000' : '0'
        const headers = { Authorization: request.headers.get('Authorization')! }
        return Response.json(
          await timed(
            n('runs'),
            async () => {
              const response = await app.fetch(
                new Request(`http://bench/v1/sessions/${q('session')}`, { headers }),
                { ...env, RATE_LIMIT_REQUESTS: limit },
                ctx,
              )
              if (!response.ok) throw new Error(await response.text())
              await response.arrayBuffer()
            },
            batch,
          ),
        )
      }
      case '/bench/storage-turn': {
        const work = q('work') === 'tool' ? 'tool' : 'turn'
        return Response.json(
          q('peer')
            ? await peer().storageTurns(batch, n('from'), work)
            : await session().storageTurns(batch, n('from'), q('search') === 'off', work),
        )
      }
      case '/bench/peer/search': {
        // Timed as ours is: around the RPC, from the bench Worker.
        await peer().takeRows()
        const samples = await timed(n('runs'), () => peer().search(q('q')), batch)
        const rows = await peer().takeRows()
        return Response.json({ samples, rows: { rowsRead: rows.rowsRead / (n('runs') * batch), rowsWritten: rows.rowsWritten } })
      }
      case '/bench/compact':
        return Response.json(
          await timed(1, async () => {
            const result = await session().compact({ strategy: { window: { lastEvents: n('keep') } } })
            const text = result.ok ? await new Response(result.value).text() : JSON.stringify(result)
            if (!text.startsWith('{"unchanged":false')) throw new Error(text.slice(0, 300))
          }),
        )
      case '/bench/get':
        return Response.json(await timed(n('runs'), () => session().get(), batch))
      case '/bench/estimates':
        return Response.json(await session().estimates())
      case '/bench/peer/seed':
        return Response.json(await peer().seed(n('count'), n('from')))
      case '/bench/peer/size':
        return Response.json(await peer().size())
      case '/bench/peer/overlay':
        await peer().overlay(n('upTo'))
        return Response.json({ ok: true })
      case '/bench/peer/turn':
        return Response.json(await timed(n('runs'), (i) => peer().turn(i), batch))
      case '/bench/clock':
        return Response.json(await timed(3, () => scheduler.wait(50)))
    }
    return new Response('no such bench route', { status: 404 })

    /** A whole turn through the object (the agent-mode stub: tools after a user message, text after results), as text. */
    async function turnText(input: Record<string, unknown>): Promise<string> {
      const compaction = JSON.parse(q('compaction'))
      const stream = await session().turn(address(), { model: 'agent-_', tools: TOOLS, compaction, ...input }, NO_TURN_LIMITS)
      return new Response(stream).text()
    }

    /** Asks a question the stub answers with one tool call; answers the call's id. */
    async function askForTool(i: number): Promise<string> {
      const text = await turnText({ content: message(i) })
      const id = /"toolCalls":\[\{"id":"([^"]+)"/.exec(text)?.[1]
      if (!id) throw new Error(`no tool call: ${text.slice(0, 300)}`)
      return id
    }
  },
}
