/**
 * Issue 50, the MCP server: a tool call through `/mcp` against the REST request it wraps (both
 * through the app in workerd), and a `tools/list`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { sign } from 'hono/jwt'
import type { Measured } from '../shared'
import type { BenchWorker } from './client'
import { column, median, medianRatio, p95 } from './columns'
import { ROUNDS, RUN, SECRET } from './config'
import type { MeasurementName } from './measurements'
import type { MeasuredTable, Measurement } from './runner'

const USER = `mcp-${RUN}`
const SESSION = `mcp-${RUN}`
/** The tools compared, each with the REST request it wraps. */
const OPERATIONS = {
  context: ['get_context', 'GET /v1/sessions/:id/context'],
  list: ['list_sessions', 'GET /v1/sessions?limit=20'],
  recall: ['recall (a query)', 'GET /v1/sessions/:id/search'],
} as const
type Operation = keyof typeof OPERATIONS
/** Calls a sample: 20, so the clock's 3 ms step is 0.15 ms of one. */
const BATCH = 20

/** What each tool is called with, and the REST path it wraps, over HTTP from here. */
const OVER_HTTP: Record<Operation, { tool: [string, Record<string, unknown>]; rest: string }> = {
  context: { tool: ['get_context', { sessionId: SESSION }], rest: `/v1/sessions/${SESSION}/context` },
  list: { tool: ['list_sessions', { limit: 20 }], rest: '/v1/sessions?limit=20' },
  recall: {
    tool: ['recall', { sessionId: SESSION, query: 'lighthouse lamp', limit: 5 }],
    rest: `/v1/sessions/${SESSION}/search?q=lighthouse%20lamp&limit=5`,
  },
}

const tokenOfUser = () => sign({ sub: USER, exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256')

/** `BATCH` runs of `call`, timed together from here (one sample). */
async function timedBatch(call: () => Promise<unknown>): Promise<Measured> {
  const started = performance.now()
  for (let i = 0; i < BATCH; i++) await call()
  return { samples: [(performance.now() - started) / BATCH] }
}

/** As an agent makes it: the MCP SDK's own client over HTTP (connected untimed), a tool called `BATCH` times. */
async function toolOverHttp(worker: BenchWorker, op: Operation): Promise<Measured> {
  const [name, args] = OVER_HTTP[op].tool
  const client = new Client({ name: 'bench', version: '1.0.0' })
  const headers = { Authorization: `Bearer ${await tokenOfUser()}` }
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', worker.url), { requestInit: { headers } }))
  try {
    return await timedBatch(async () => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`)
    })
  } finally {
    await client.close()
  }
}

/** The REST request the tool wraps, over HTTP, its answer read as JSON, `BATCH` times. */
async function restOverHttp(worker: BenchWorker, op: Operation): Promise<Measured> {
  const headers = { Authorization: `Bearer ${await tokenOfUser()}` }
  return timedBatch(async () => {
    const response = await fetch(new URL(OVER_HTTP[op].rest, worker.url), { headers })
    if (!response.ok) throw new Error(`${OVER_HTTP[op].rest}: ${response.status}`)
    await response.json()
  })
}

export function mcpMeasurements(worker: BenchWorker) {
  let seeded: Promise<unknown> | null = null
  const setup = () => (seeded ??= worker.bench('mcp/seed', { user: USER, session: SESSION }))
  const keys = Object.keys(OPERATIONS) as Operation[]
  return {
    mcpRest: {
      rounds: ROUNDS,
      keys,
      setup,
      sample: (op) => worker.bench('mcp/rest', { user: USER, session: SESSION, op, batch: BATCH }),
    },
    mcpTool: {
      rounds: ROUNDS,
      keys,
      setup,
      sample: (op) => worker.bench('mcp/tool', { user: USER, session: SESSION, op, batch: BATCH }),
    },
    mcpRestHttp: { rounds: ROUNDS, keys, setup, sample: (op) => restOverHttp(worker, op as Operation) },
    mcpToolHttp: { rounds: ROUNDS, keys, setup, sample: (op) => toolOverHttp(worker, op as Operation) },
    mcpToolsList: {
      rounds: ROUNDS,
      keys: ['tools/list'],
      setup,
      sample: () => worker.bench('mcp/tools-list', { user: USER, batch: BATCH }),
    },
  } satisfies Record<string, Measurement>
}

export const MCP_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title:
      'An MCP tool call through /mcp (the v2 client’s request on 2026-07-28, recorded and sent again) against the REST request it wraps, both through the app in workerd (20 a sample)',
    measure: [['mcpRest', 'mcpTool']],
    columns: [
      column('tool', (op) => OPERATIONS[op as Operation][0]),
      median('MCP median', 'mcpTool'),
      p95('mcpTool'),
      column('REST request', (op) => OPERATIONS[op as Operation][1]),
      median('REST median', 'mcpRest'),
      p95('mcpRest'),
      medianRatio('MCP / REST', 'mcpTool', 'mcpRest'),
    ],
    notes: [() => 'target: MCP / REST ≤ 1.2×'],
  },
  {
    title:
      'An MCP tool call as an agent makes it (the MCP SDK’s client over HTTP) against the REST request it wraps (fetch over HTTP, its JSON read), end to end through the dev server (20 a sample)',
    measure: [['mcpRestHttp', 'mcpToolHttp']],
    columns: [
      column('tool', (op) => OPERATIONS[op as Operation][0]),
      median('MCP median', 'mcpToolHttp'),
      p95('mcpToolHttp'),
      column('REST request', (op) => OPERATIONS[op as Operation][1]),
      median('REST median', 'mcpRestHttp'),
      p95('mcpRestHttp'),
      medianRatio('MCP / REST', 'mcpToolHttp', 'mcpRestHttp'),
    ],
    notes: [() => 'target: MCP / REST ≤ 1.2×'],
  },
  {
    title: 'tools/list through /mcp in workerd (a fresh server a request: stateless; 20 a sample)',
    measure: ['mcpToolsList'],
    columns: [column('request', (key) => String(key)), median('median', 'mcpToolsList'), p95('mcpToolsList')],
    notes: [() => 'target: under 5 ms in workerd'],
  },
]
