/**
 * Issue 50, the MCP server: a tool call through `/mcp` against the REST request it wraps (both
 * through the app in workerd), and a `tools/list`.
 */
import type { BenchWorker } from './client'
import { column, median, medianRatio, p95 } from './columns'
import { ROUNDS, RUN } from './config'
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
    title: 'tools/list through /mcp in workerd (a fresh server a request: stateless; 20 a sample)',
    measure: ['mcpToolsList'],
    columns: [column('request', (key) => String(key)), median('median', 'mcpToolsList'), p95('mcpToolsList')],
    notes: [() => 'target: under 5 ms in workerd'],
  },
]
