/**
 * The memory benchmarks' Worker side (routed from bench/entry.ts under /bench/memory): the user's
 * memory object, subclassed to count its rows and the commands it runs; a memory command as a
 * turn runs it against the REST call that does the same; listing 1,000 files; what a turn reads
 * of the user's memory with the tool and without.
 */
import { type Context, Hono } from 'hono'
import { sign } from 'hono/jwt'
import type { TurnInput } from '../src/contract/schemas'
import { app } from '../src/http/app'
import { memoryStub, sessionStub } from '../src/object/address'
import { MemoryStore } from '../src/object/memory-store'
import { countRows, type RowCounts } from '../test/support/row-counts'
import type { Measured } from './shared'
import { perRun } from './timing'

/** A user's memory object that counts its rows and the commands it runs. */
export class BenchMemoryStore extends MemoryStore {
  private readonly rows: { take(): RowCounts }
  private commands = 0

  constructor(ctx: DurableObjectState, env: Env) {
    const rows = countRows(ctx.storage)
    super(ctx, env)
    this.rows = rows
  }

  override command(args: string) {
    this.commands++
    return super.command(args)
  }

  /** Rows read and written since the last take, and the commands run in all. */
  taken(): RowCounts & { commands: number } {
    return { ...this.rows.take(), commands: this.commands }
  }

  /** `batch` listings of every file, inside the object (the query and its JSON, no RPC). */
  listInside(batch: number): Promise<Measured> {
    return perRun(this.rows, batch, () => this.list('/memories/'))
  }
}

/** The text of each seeded file (about a line of notes). */
const TEXT = 'The user prefers short answers, tea without sugar, and meetings after ten.\n'

/** What the benchmark compares: a memory command, and the REST call that does the same (method, path under /v1/memories, body). */
type Operation = (i: number) => { tool: Record<string, unknown>; rest: [string, string, unknown?] }

export const OPERATIONS: Record<string, Operation> = {
  create: (i) => ({
    tool: { command: 'create', path: `/memories/new/${i}.md`, file_text: TEXT },
    rest: ['PUT', `/new/${i}.md`, { content: TEXT }],
  }),
  // The same text in and out: each a new version, whatever ran before.
  replace: () => ({
    tool: { command: 'str_replace', path: '/memories/edit.md', old_str: 'state: ', new_str: 'state: ' },
    rest: ['PATCH', '/edit.md', { replace: { old: 'state: ', new: 'state: ' } }],
  }),
  view: () => ({ tool: { command: 'view', path: '/memories/notes/1.md' }, rest: ['GET', '/notes/1.md'] }),
  list: () => ({ tool: { command: 'view', path: '/memories' }, rest: ['GET', ''] }),
}

type BenchContext = Context<{ Bindings: Env }>
const query = (c: BenchContext, name: string) => c.req.query(name) ?? ''
const numberOf = (c: BenchContext, name: string) => Number(c.req.query(name) ?? 1)
const storeOf = (c: BenchContext) =>
  memoryStub(c.env, query(c, 'user')) as unknown as DurableObjectStub<BenchMemoryStore> & BenchMemoryStore

/** The session object's benchmark methods these routes call (bench/entry.ts's BenchSessionObject). */
interface MeasuredSession {
  memoryCommands(address: { userId: string; sessionId: string }, commands: string[]): Promise<Measured>
  turn(address: { userId: string; sessionId: string }, input: TurnInput): Promise<string | ReadableStream<Uint8Array>>
}
const sessionOf = (c: BenchContext) =>
  sessionStub(c.env, query(c, 'user'), query(c, 'session')) as unknown as DurableObjectStub & MeasuredSession

/** `batch` REST calls through the app in workerd as the user, timed here (one sample). */
async function restCalls(c: BenchContext, operation: Operation, from: number, batch: number): Promise<Measured> {
  const token = await sign({ sub: query(c, 'user'), exp: Math.floor(Date.now() / 1000) + 3600 }, c.env.JWT_SECRET!, 'HS256')
  const started = performance.now()
  for (let i = from; i < from + batch; i++) {
    const [method, path, body] = operation(i).rest
    const headers = { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }
    const request = new Request(`http://bench/v1/memories${path}`, { method, headers, body: body ? JSON.stringify(body) : null })
    const response = await app.fetch(request, c.env, c.executionCtx)
    if (!response.ok) throw new Error(`${method} ${path}: ${await response.text()}`)
    await response.arrayBuffer()
  }
  return { samples: [(performance.now() - started) / batch] }
}

/** The turn each mode sends: no memory tool; the tool offered to a model that never calls it; one create. */
const TURNS: Record<string, (i: number) => TurnInput> = {
  none: (i) => ({ content: `a turn ${i}` }),
  offered: (i) => ({ content: `a turn ${i}`, memory: true }),
  command: (i) => ({
    content: `MEMORY:${JSON.stringify([[OPERATIONS.create!(1_000_000 + i).tool]])}`,
    model: 'memory',
    memory: true,
  }),
}

let turns = 0

/** The memory routes of the bench Worker. */
export const memoryBench = new Hono<{ Bindings: Env }>()
  // The user's files: notes/0.md … notes/<files - 1>.md and edit.md, written once.
  .get('/seed', async (c) => {
    const store = storeOf(c)
    const files = numberOf(c, 'files')
    const listed = await store.list('/memories/')
    if (!listed.ok) throw new Error(JSON.stringify(listed.error))
    for (let i = (JSON.parse(listed.value) as { files: unknown[] }).files.length; i < files; i++) {
      const path = i === 0 ? '/memories/edit.md' : `/memories/notes/${i}.md`
      const written = await store.put(path, i === 0 ? 'state: seeded\n' : TEXT, null)
      if (!written.ok) throw new Error(JSON.stringify(written.error))
    }
    return c.json({ samples: [] })
  })
  .get('/rest', async (c) => c.json(await restCalls(c, OPERATIONS[query(c, 'op')]!, numberOf(c, 'from'), numberOf(c, 'batch'))))
  .get('/in-turn', async (c) => {
    const operation = OPERATIONS[query(c, 'op')]!
    const from = numberOf(c, 'from')
    const commands = Array.from({ length: numberOf(c, 'batch') }, (_, i) => JSON.stringify(operation(from + i).tool))
    const address = { userId: query(c, 'user'), sessionId: query(c, 'session') }
    const store = storeOf(c)
    await store.taken()
    const measured = await sessionOf(c).memoryCommands(address, commands)
    // The memory object's rows too, per command (the session object's are the measurement's).
    const { rowsRead, rowsWritten } = await store.taken()
    return c.json<Measured>({
      ...measured,
      counts: { memoryRowsRead: rowsRead / commands.length, memoryRowsWritten: rowsWritten / commands.length },
    })
  })
  .get('/list-inside', async (c) => c.json(await storeOf(c).listInside(numberOf(c, 'batch'))))
  // One turn; the user's memory object's rows and commands meanwhile.
  .get('/turn', async (c) => {
    const store = storeOf(c)
    const before = await store.taken()
    const address = { userId: query(c, 'user'), sessionId: query(c, 'session') }
    const input = { ...TURNS[query(c, 'mode')]!(turns++), compaction: false as const }
    const text = await new Response(await sessionOf(c).turn(address, input)).text()
    if (!text.includes('"type":"done"')) throw new Error(text.slice(0, 300))
    const after = await store.taken()
    return c.json<Measured>({
      samples: [],
      rows: { rowsRead: after.rowsRead, rowsWritten: after.rowsWritten },
      counts: { commands: after.commands - before.commands },
    })
  })
