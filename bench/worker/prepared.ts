/**
 * Issue 52, compaction without the wait: a compaction a client asks for (`POST /compact`) on a
 * session whose summary is prepared, against one that calls no model and one that waits for the
 * summary model; and what preparing costs in summary calls and tokens over 1,000 turns, beside
 * the summary calls it takes off the turns' path.
 */
import { type Measured, message } from '../shared'
import type { BenchWorker } from './client'
import { column, n, p95, ratio } from './columns'
import { ROUNDS, RUN } from './config'
import type { MeasurementName } from './measurements'
import type { MeasuredTable, Measurement } from './runner'

/** The summary model's own time: the fake answers after this long. */
const SUMMARY_MS = 500
const TURNS = 20

/** The compactions compared: the request's body, and whether the session prepares its summary. */
const KINDS = {
  'no model (a window pass without a summary)': { body: { strategy: { window: { lastTurns: 4 } } }, prepare: true },
  'prepared summary': { body: {}, prepare: true },
  'summary model (nothing prepared)': { body: {}, prepare: false },
} as const
type Kind = keyof typeof KINDS
const FLOOR: Kind = 'no model (a window pass without a summary)'

let sessions = 0
/**
 * A session of 20 turns and one more through /turns, its preparation (two summaries of a slow
 * model) waited for: ready for a compaction to be timed. Untimed.
 */
async function preparedSession(worker: BenchWorker, prepare: boolean): Promise<string> {
  const id = `prepared-${RUN}-${++sessions}`
  const policy = {
    trigger: { turnCount: 1000 },
    strategy: { window: { lastTurns: 4 }, summarizer: { model: `slow-${SUMMARY_MS}` } },
    prepare: prepare ? { at: 0.0001 } : false,
  }
  await worker.api('POST', '/v1/sessions', { id, policy })
  const events = Array.from({ length: TURNS }, (_, i) => [
    { message: { role: 'user', content: message(i) } },
    { message: { role: 'assistant', content: `Answer ${i}: the rollout goes in three waves.` } },
  ]).flat()
  await worker.api('POST', `/v1/sessions/${id}/events`, { events })
  await worker.api('POST', `/v1/sessions/${id}/turns`, { content: message(TURNS), model: 'echo' })
  for (;;) {
    const context = await worker.api('GET', `/v1/sessions/${id}/context`)
    if (!context.preparing && (!prepare || context.prepared?.state === 'ready')) return id
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One compaction, timed from here over HTTP. */
async function compaction(worker: BenchWorker, kind: Kind): Promise<Measured> {
  const id = await preparedSession(worker, KINDS[kind].prepare)
  const started = performance.now()
  const result = await worker.api('POST', `/v1/sessions/${id}/compact`, KINDS[kind].body)
  const elapsed = performance.now() - started
  if (result.unchanged) throw new Error(`${kind}: the pass covered nothing`)
  return { samples: [elapsed], counts: { prepared: result.boundary.boundary.prepared ? 1 : 0 } }
}

const LONG_TURNS = 1000
/** A policy whose pass fires at 3,000 tokens and keeps 1,500, its summary prepared (or not) with the fake's echo. */
const longPolicy = (tag: string, prepare: boolean) => ({
  trigger: { tokenCount: 3000 },
  strategy: { window: { tokenBudget: 1500 }, summarizer: { model: `echo#${tag}` } },
  prepare: prepare ? {} : false,
})

/**
 * 1,000 turns through /turns, a user who reads each answer (the next turn after the preparation
 * ended): the summary calls and tokens the session spent, its passes, and the passes that took a
 * prepared summary (the summary calls that left the turns' path).
 */
async function longSession(worker: BenchWorker, prepare: boolean): Promise<Measured> {
  const tag = `long${RUN}${prepare ? 'p' : 'n'}${++sessions}`
  const id = `long-${tag}`
  await worker.api('POST', '/v1/sessions', { id, policy: longPolicy(tag, prepare) })
  let onPath = 0
  for (let i = 0; i < LONG_TURNS; i++) {
    const before = await summaryCalls(worker, tag)
    const turn = await worker.api('POST', `/v1/sessions/${id}/turns`, { content: message(i), model: 'echo' })
    // The calls made before the answer came: the pass's, on the turn's path.
    if (turn.compaction?.boundary) onPath += (await summaryCalls(worker, tag)) - before
    while ((await worker.api('GET', `/v1/sessions/${id}/context`)).preparing) await new Promise((r) => setTimeout(r, 5))
  }
  const context = await worker.api('GET', `/v1/sessions/${id}/context`)
  const { compactions } = await worker.api('GET', `/v1/sessions/${id}/compactions?limit=1000`)
  return {
    samples: [],
    counts: {
      passes: compactions.length,
      prepared: compactions.filter((c: { boundary: { boundary: { prepared?: boolean } } }) => c.boundary.boundary.prepared)
        .length,
      summaryCalls: await summaryCalls(worker, tag),
      summaryTokens: context.usage.summaryTokens,
      onPath,
    },
  }
}

const summaryCalls = async (worker: BenchWorker, tag: string) =>
  ((await (await fetch(`${worker.upstreamUrl}/__requests?tag=${tag}`)).json()) as unknown[]).length

export function preparedMeasurements(worker: BenchWorker) {
  return {
    preparedCompaction: {
      rounds: Math.min(ROUNDS, 10),
      keys: Object.keys(KINDS),
      sample: (kind) => compaction(worker, kind as Kind),
    },
    preparationCost: {
      rounds: 1,
      keys: ['prepared', 'not prepared'],
      sample: (key) => longSession(worker, key === 'prepared'),
    },
  } satisfies Record<string, Measurement>
}

const median = (name: MeasurementName) => column('median', (key, r) => `${r.median(name, key).toFixed(1)} ms`)

export const PREPARED_TABLES: MeasuredTable<MeasurementName>[] = [
  {
    title: `A compaction asked for (POST /compact over HTTP) on a session of ${TURNS + 1} turns: with a prepared summary, against one that calls no model and one that waits for the summary model (${SUMMARY_MS} ms)`,
    measure: ['preparedCompaction'],
    columns: [
      column('compaction', (key) => String(key)),
      median('preparedCompaction'),
      p95('preparedCompaction'),
      column('÷ no model', (key, r) => ratio(r.median('preparedCompaction', key), r.median('preparedCompaction', FLOOR))),
    ],
    notes: [() => 'target: with a prepared summary ≤ 1.5× of a request that calls no model'],
  },
  {
    title: `What preparing costs: ${n(LONG_TURNS)} turns through /turns, a pass at 3,000 tokens keeping 1,500, the next turn after the preparation ended`,
    measure: ['preparationCost'],
    columns: [
      column('session', (key) => String(key)),
      column('passes', (key, r) => r.counts('preparationCost', key).passes!),
      column('passes that took a prepared summary', (key, r) => r.counts('preparationCost', key).prepared!),
      column('summary calls', (key, r) => n(r.counts('preparationCost', key).summaryCalls!)),
      column('summary calls on a turn’s path', (key, r) => r.counts('preparationCost', key).onPath!),
      column('summary tokens', (key, r) => n(r.counts('preparationCost', key).summaryTokens!)),
    ],
  },
]
