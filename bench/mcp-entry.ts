/**
 * The MCP benchmarks' Worker side (routed from bench/entry.ts under /bench/mcp): an MCP tool call
 * through `/mcp` against the REST request it wraps through the same app; a `tools/list`. The MCP
 * requests are the official v2 client's own, recorded once and sent again (timed): the server's
 * cost, as the REST side's is, without the client's.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { type Context, Hono } from 'hono'
import { sign } from 'hono/jwt'
import { acrossSessions } from '../src/contract/search-settings'
import { app } from '../src/http/app'
import { searchShardStub, sessionStub } from '../src/object/address'
import type { RowCounts } from '../test/support/row-counts'
import type { Measured } from './shared'

type BenchContext = Context<{ Bindings: Env }>
const query = (c: BenchContext, name: string) => c.req.query(name) ?? ''
const numberOf = (c: BenchContext, name: string) => Number(c.req.query(name) ?? 1)

/** What the benchmark compares: a tool call, and the REST request it wraps (a path under /v1). */
export const MCP_OPERATIONS: Record<string, (session: string) => { tool: [string, Record<string, unknown>]; rest: string }> = {
  context: (session) => ({ tool: ['get_context', { sessionId: session }], rest: `/sessions/${session}/context` }),
  list: () => ({ tool: ['list_sessions', { limit: 20 }], rest: '/sessions?limit=20' }),
  recall: (session) => ({
    tool: ['recall', { sessionId: session, query: 'lighthouse lamp', limit: 5 }],
    rest: `/sessions/${session}/search?q=lighthouse%20lamp&limit=5`,
  }),
}

const tokenOf = (c: BenchContext) =>
  sign({ sub: query(c, 'user'), exp: Math.floor(Date.now() / 1000) + 3600 }, c.env.JWT_SECRET!, 'HS256')

/**
 * The request the v2 client (on the 2026-07-28 revision, as Claude Code speaks it) sends for
 * `call`, recorded as it goes through the app, and a way to send it again.
 */
async function recorded(c: BenchContext, call: (client: Client) => Promise<unknown>): Promise<() => Promise<Response>> {
  const requests: Request[] = []
  const recording = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    requests.push(request.clone())
    return app.fetch(request, c.env, c.executionCtx)
  }
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  const transport = new StreamableHTTPClientTransport(new URL('http://bench/mcp'), {
    fetch: recording,
    requestInit: { headers: { Authorization: `Bearer ${await tokenOf(c)}` } },
  })
  await client.connect(transport)
  const before = requests.length
  await call(client)
  await client.close()
  const [request] = requests.slice(before)
  if (!request) throw new Error('the client sent nothing')
  const body = await request.text()
  return async () =>
    app.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body }), c.env, c.executionCtx)
}

/** Reads an MCP answer whole; a failure is the benchmark's error. */
async function answered(response: Response): Promise<void> {
  const text = await response.text()
  if (!response.ok || text.includes('"isError":true')) throw new Error(`mcp: ${response.status} ${text.slice(0, 300)}`)
}

/** `batch` runs of `call`, timed together (one sample). */
async function timed(batch: number, call: () => Promise<unknown>): Promise<Measured> {
  const started = performance.now()
  for (let i = 0; i < batch; i++) await call()
  return { samples: [(performance.now() - started) / batch] }
}

/** The read tools measured on logs of any size: the calls, and the objects whose rows they count. */
const AT_SIZE: Record<string, (session: string) => [string, Record<string, unknown>]> = {
  // The newest 20 events of the session, as markdown (the default).
  read: (session) => ['read_session', { sessionId: session }],
  // A ranked question across the user's sessions (mode auto, the default).
  search: () => ['search_sessions', { query: 'what did we decide about the rollout plan for project 7?' }],
}

/** An object of the bench Worker that counts its rows (bench/entry.ts's session object and search shard). */
type Counting = { takeRows(): Promise<RowCounts> }

/** The objects a tool's rows are counted in: the session read, or every search shard of the user. */
function countedFor(c: BenchContext, op: string): Counting[] {
  if (op === 'read') return [sessionStub(c.env, query(c, 'user'), query(c, 'session')) as unknown as Counting]
  const { shards } = acrossSessions(c.env)
  return Array.from(
    { length: shards },
    (_, shard) => searchShardStub(c.env, query(c, 'user'), shards, shard) as unknown as Counting,
  )
}

/** The rows of `objects` since the last take, summed. */
async function rowsOf(objects: Counting[]): Promise<RowCounts> {
  const taken = await Promise.all(objects.map((object) => object.takeRows()))
  return {
    rowsRead: taken.reduce((sum, rows) => sum + rows.rowsRead, 0),
    rowsWritten: taken.reduce((sum, rows) => sum + rows.rowsWritten, 0),
  }
}

/** The MCP routes of the bench Worker. */
export const mcpBench = new Hono<{ Bindings: Env }>()
  // A session of a few hundred events about a lighthouse, written once.
  .get('/seed', async (c) => {
    const session = query(c, 'session')
    const events = Array.from({ length: 200 }, (_, i) => ({
      id: `e${i}`,
      message: {
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `Turn ${i}: the lighthouse keeper trimmed the lamp wick ${i} times.`,
      },
    }))
    const request = new Request(`http://bench/v1/sessions/${session}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await tokenOf(c)}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ events }),
    })
    const response = await app.fetch(request, c.env, c.executionCtx)
    if (!response.ok) throw new Error(`seed: ${await response.text()}`)
    return c.json<Measured>({ samples: [] })
  })
  .get('/rest', async (c) => {
    const { rest } = MCP_OPERATIONS[query(c, 'op')]!(query(c, 'session'))
    const headers = { Authorization: `Bearer ${await tokenOf(c)}` }
    return c.json(
      await timed(numberOf(c, 'batch'), async () => {
        const response = await app.fetch(new Request(`http://bench/v1${rest}`, { headers }), c.env, c.executionCtx)
        if (!response.ok) throw new Error(`${rest}: ${await response.text()}`)
        await response.arrayBuffer()
      }),
    )
  })
  .get('/tool', async (c) => {
    const [name, args] = MCP_OPERATIONS[query(c, 'op')]!(query(c, 'session')).tool
    const send = await recorded(c, async (client) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`)
    })
    return c.json(await timed(numberOf(c, 'batch'), async () => answered(await send())))
  })
  // A read tool on a session (or the user's sessions) of any size: the recorded request sent `batch` times, with its rows.
  .get('/tool-at-size', async (c) => {
    const op = query(c, 'op')
    const [name, args] = AT_SIZE[op]!(query(c, 'session'))
    const send = await recorded(c, async (client) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`)
    })
    const counted = countedFor(c, op)
    const batch = numberOf(c, 'batch')
    await rowsOf(counted)
    const measured = await timed(batch, async () => answered(await send()))
    const rows = await rowsOf(counted)
    return c.json<Measured>({ ...measured, rows: { rowsRead: rows.rowsRead / batch, rowsWritten: rows.rowsWritten / batch } })
  })
  .get('/tools-list', async (c) => {
    const send = await recorded(c, (client) => client.listTools())
    return c.json(await timed(numberOf(c, 'batch'), async () => answered(await send())))
  })
