/**
 * Benchmarks of the pure compaction core, in plain Node: projection and window passes on large
 * views, estimates per event, and the tokenizer (including its worst cases).
 */
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import {
  ArrayStore,
  atSeq,
  columnsOf,
  compact,
  countingEstimator,
  defaultEstimator,
  extendView,
  type Message,
  newMessageEvent,
  project,
  type SessionEvent,
} from '../src/core'
import { recordPass } from '../src/core/compact/pass-events'
import { planPass } from '../src/core/pass'
import { measure, ms, table } from './stats'

const SIZES = [100, 1_000, 10_000, 100_000]
const now = () => '2026-01-01T00:00:00.000Z'

/** A realistic turn: user question, sometimes a tool call and its result, assistant answer. */
function turnMessages(i: number): Message[] {
  const user: Message = { role: 'user', content: `Question ${i}: how does compaction keep the prompt inside the context window?` }
  const answer: Message = {
    role: 'assistant',
    content: `Answer ${i}: it leaves older turns out of the view and can summarize them, never deleting the log.`,
  }
  if (i % 5 !== 0) return [user, answer]
  return [
    user,
    { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'search', arguments: `{"q":"compaction ${i}"}` }] },
    { role: 'tool', content: null, toolResponses: [{ id: `c${i}`, name: 'search', data: `result ${i}: `.repeat(20) }] },
    answer,
  ]
}

async function buildLog(size: number) {
  const estimator = countingEstimator(defaultEstimator)
  const store = new ArrayStore()
  let turn = 0
  let id = 0
  const deps = { store, estimator, newId: () => `g${++id}`, now }
  const summarizer = {
    async summarize() {
      return {
        kind: 'summary' as const,
        messages: [
          { role: 'user' as const, content: 'So far?' },
          { role: 'assistant' as const, content: 'A summary of the earlier turns.' },
        ],
      }
    },
  }
  while (store.log.length < size) {
    const batch = turnMessages(turn++).map((message) => newMessageEvent({ id: `e${++id}`, message, timestamp: now() }, estimator))
    store.appendNow(batch)
    // Compact now and then, as a live session would (summarizing every other time).
    if (turn % 200 === 0) {
      await compact(
        {
          session: { id: 's', metadata: {} },
          strategy: { window: { lastTurns: 50 }, summarizer: turn % 400 === 0 ? summarizer : null },
        },
        deps,
      )
    }
  }
  const distinctMessages = new Set(store.log.filter((e) => e.type === 'MESSAGE').map((e) => e.id)).size
  return { log: store.log, estimates: estimator.calls, distinctMessages }
}

async function viewBenchmarks() {
  const rows: (string | number)[][] = []
  const estimateRows: (string | number)[][] = []
  for (const size of SIZES) {
    const { log, estimates, distinctMessages } = await buildLog(size)
    // An uncompacted view of `size` events too: the worst case for a pass.
    const flat: SessionEvent[] = log.filter((e) => e.type === 'MESSAGE' && !e.synthetic).map((e, i) => atSeq(e, i + 1))
    const flatView = columnsOf(project(flat))
    const idsAt = (positions: Int32Array) => Array.from(positions, (p) => flat[p]!.id)
    const projection = await measure(() => project(flat))
    const tail = flat.slice(-3)
    const cached = project(flat.slice(0, -3))
    const incremental = await measure(() => extendView(cached, tail), { minRuns: 50 })
    const pass = await measure(() => {
      const plan = planPass(flatView, { window: { lastTurns: 20 }, summarizing: false })
      if (plan.kind === 'cut')
        recordPass(plan, { pinned: idsAt(plan.pinned), held: [], preserved: idsAt(plan.preserved) }, [], {
          id: 'b',
          timestamp: now(),
        })
    })
    const budget = await measure(() => planPass(flatView, { window: { tokenBudget: 8_000 }, summarizing: false }))
    rows.push([
      size.toLocaleString('en'),
      ms(projection.median),
      ms(projection.p95),
      ms(incremental.median),
      ms(pass.median),
      ms(pass.p95),
      ms(budget.median),
    ])
    estimateRows.push([
      size.toLocaleString('en'),
      log.length.toLocaleString('en'),
      distinctMessages.toLocaleString('en'),
      estimates.toLocaleString('en'),
      estimates === distinctMessages ? 'yes' : 'NO',
    ])
  }
  table(
    'Projection and window pass over a view of N events (plain Node)',
    [
      'view events',
      'project(log) median',
      'p95',
      'extendView(+3) median',
      'lastTurns(20) pass median',
      'p95',
      'tokenBudget(8000) pass median',
    ],
    rows,
  )
  table(
    'Token estimates while building the log (turns appended, compacted every 200 turns)',
    ['target events', 'log events', 'distinct messages', 'estimates computed', 'one per event'],
    estimateRows,
  )
}

async function tokenizerBenchmarks() {
  const plain = { disallowedSpecial: new Set<string>() }
  const chat = Array.from(
    { length: 1000 },
    (_, i) => `User: message ${i} — could you summarise what we decided about the deployment plan and the open items?`,
  )
  const chatTiming = await measure(
    () => {
      for (const m of chat) defaultEstimator.count(m)
    },
    { minRuns: 5 },
  )
  const toolResult = JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `item-${i}`, ok: i % 3 === 0 })))
  const bigTiming = await measure(() => defaultEstimator.count(toolResult), { minRuns: 5 })
  table(
    'Token estimation throughput (gpt-tokenizer cl100k_base)',
    ['input', 'median', 'p95', 'throughput'],
    [
      [
        '1,000 chat messages (~100 chars)',
        ms(chatTiming.median),
        ms(chatTiming.p95),
        `${Math.round(1000 / (chatTiming.median / 1000)).toLocaleString('en')} msgs/s`,
      ],
      [
        `tool result, ${(toolResult.length / 1024).toFixed(0)} KB JSON`,
        ms(bigTiming.median),
        ms(bigTiming.p95),
        `${(toolResult.length / 1024 / 1024 / (bigTiming.median / 1000)).toFixed(1)} MB/s`,
      ],
    ],
  )

  const rows: (string | number)[][] = []
  for (const kb of [4, 16, 64, 1024]) {
    const text = 'a'.repeat(kb * 1024)
    const guarded = await measure(() => defaultEstimator.count(text), { minRuns: 3, minMs: 100, warmup: 1 })
    // The unguarded library is quadratic: only run it where it finishes in reasonable time.
    const raw = kb <= 64 ? await measure(() => countTokens(text, plain), { minRuns: 1, minMs: 0, warmup: 0 }) : null
    rows.push([
      `${kb} KB of one letter`,
      ms(guarded.median),
      raw ? ms(raw.median) : 'not run (minutes)',
      String(defaultEstimator.count(text)),
      raw ? String(countTokens(text, plain)) : '—',
    ])
  }
  const special = 'ignore <|endoftext|> and <|fim_prefix|> markers'
  rows.push(['special-token text', 'counted as text', '', String(defaultEstimator.count(special)), 'throws by default'])
  table(
    'Worst case: one long run with no spaces (guarded = 256-char slices)',
    ['input', 'guarded median', 'unguarded', 'guarded tokens', 'unguarded tokens'],
    rows,
  )
}

await viewBenchmarks()
await tokenizerBenchmarks()
