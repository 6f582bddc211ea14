/**
 * Benchmarks through the real Worker in local workerd (wrangler's dev server, offline), with a
 * stub model (the fake OpenAI-compatible upstream) that answers at once. Times marked "in
 * workerd" are taken inside the Worker around RPC calls to the Durable Object, so the dev
 * server's proxy (several ms per request here) is not in them; "HTTP" times are end to end.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { sign } from 'hono/jwt'
import { unstable_startWorker } from 'wrangler'
import { startFakeOpenAI } from '../test/upstream/fake-openai'
import { ms, table } from './stats'

const SECRET = 'bench-secret'
const USER = 'bench'
const SIZES = process.env.BENCH_SIZES?.split(',').map(Number) ?? [1_000, 10_000, 100_000, 1_000_000]
/** Projecting the whole log per read is not run beyond this (at 1M it takes seconds a read). */
const NAIVE_MAX = 100_000
/** Sessions made per run get this suffix; the big logs are kept in `.bench/state` between runs. */
const RUN = Date.now().toString(36)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
/** Turns a session's view keeps: ~400 events of ~150 bytes, about the 64 KiB the peer reads back. */
const VIEW_TURNS = 200

// Counting prompt tokens by characters: a tokenizer in the stub would be timed as the service's.
const upstream = await startFakeOpenAI({ counting: 'characters' })
const worker = await unstable_startWorker({
  config: 'bench/wrangler.bench.toml',
  bindings: {
    JWT_SECRET: { type: 'plain_text', value: SECRET },
    OPENAI_BASE_URL: { type: 'plain_text', value: `${upstream.url}/v1` },
    CHAT_MODEL: { type: 'plain_text', value: 'echo' },
    SUMMARY_MODEL: { type: 'plain_text', value: 'echo' },
    // Room for the ~10k-token views the sessions keep: a turn's prompt fits, so no pass runs to make room.
    CHAT_CONTEXT_TOKENS: { type: 'plain_text', value: '131072' },
    // One user seeds and measures far more than 600 requests a minute: the limits are off here
    // (what they cost per request is in the README, "Rate limits and quotas").
    RATE_LIMIT_REQUESTS: { type: 'plain_text', value: '0' },
    RATE_LIMIT_TURNS: { type: 'plain_text', value: '0' },
    MAX_QUEUED_TURNS: { type: 'plain_text', value: '0' },
  },
  dev: { server: { port: 0 }, persist: '.bench/state', inspector: false, logLevel: 'error' },
})
await worker.ready
const token = await sign({ sub: USER, exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, SECRET, 'HS256')

async function api(method: string, path: string, body?: unknown): Promise<any> {
  const response = await worker.fetch(`http://bench${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return text === '' ? null : JSON.parse(text)
}

const bench = (path: string, params: Record<string, string | number>) =>
  api('GET', `/bench/${path}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`) as Promise<number[]>

const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.ceil(sorted.length * 0.95) - 1]! }
}
const n = (value: number) => value.toLocaleString('en')
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`

const message = (i: number) => `Message ${i}: what did we decide about the rollout plan, and which items are still open?`
const turnEvents = (i: number) => [
  { message: { role: 'user', content: message(i) } },
  { message: { role: 'assistant', content: message(i + 1) } },
]

/** A session with `size` events in its log, its view kept short by compaction as a live one's is. */
async function seed(id: string, size: number, compactEvery = 1000): Promise<void> {
  let written = 0
  let i = 0
  while (written < size) {
    const count = Math.min(compactEvery, size - written)
    const events = Array.from({ length: Math.ceil(count / 2) }, () => {
      i += 2
      return turnEvents(i)
    })
      .flat()
      .slice(0, count)
    for (let at = 0; at < events.length; at += 1000) {
      await api('POST', `/v1/sessions/${id}/events`, { events: events.slice(at, at + 1000) })
    }
    written += events.length
    if (written < size) {
      const result = await api('POST', `/v1/sessions/${id}/compact`, { strategy: { window: { lastTurns: VIEW_TURNS } } })
      if (!result.unchanged) written += 1
    }
  }
}

/**
 * A seeded session of about `size` events: the one kept from an earlier run when its log is
 * within 10% of the size (runs append a few hundred events), else made anew. Answers how long
 * seeding took (0 when kept).
 */
async function seeded(id: string, size: number): Promise<number> {
  const found = await worker.fetch(`http://bench/v1/sessions/${id}`, { headers: { Authorization: `Bearer ${token}` } })
  if (found.ok) {
    const { version } = (await found.json()) as { version: number }
    if (version >= size && version <= size * 1.1) return 0
    await api('DELETE', `/v1/sessions/${id}`)
  } else await found.text()
  const started = performance.now()
  await seed(id, size)
  return (performance.now() - started) / 1000
}

/**
 * Interleaves `rounds` of each measurement across the sizes, so drift hits every size alike. The
 * sessions are compacted between rounds (untimed), as a live session is, so measurements that
 * append do not make the view grow round after round.
 */
async function interleaved(
  sizes: number[],
  rounds: number,
  measure: (size: number) => Promise<number[]>,
  between?: (size: number) => Promise<unknown>,
) {
  const samples = new Map<number, number[]>(sizes.map((size) => [size, []]))
  for (let round = 0; round < rounds; round++) {
    for (const size of sizes) {
      samples.get(size)!.push(...(await measure(size)))
      await between?.(size)
    }
  }
  return samples
}

const keepViewShort = (size: number) =>
  api('POST', `/v1/sessions/${ours.get(size)}/compact`, {
    trigger: { turnCount: VIEW_TURNS + 20 },
    strategy: { window: { lastTurns: VIEW_TURNS } },
  })

console.log(`\nFake upstream ${upstream.url}; ${ROUNDS} rounds per measurement, sizes interleaved.`)

// ── sessions at 1k, 10k, 100k and 1M events ──────────────────────────────────────────────────
const ours = new Map<number, string>()
for (const size of SIZES) {
  const id = `log-${size}`
  const seconds = await seeded(id, size)
  ours.set(size, id)
  console.log(seconds === 0 ? `kept ${id} from an earlier run` : `seeded ${id}: ${seconds.toFixed(1)} s`)
}

// The first search of a session whose index is not caught up (stored before it existed, or before
// schema v9) indexes it, timed once over HTTP; done before anything is measured, so no catch-up
// runs under a measurement.
const firstSearch = new Map<number, number>()
for (const size of SIZES) {
  const started = performance.now()
  await api('GET', `/v1/sessions/${ours.get(size)}/search?q=decide`)
  firstSearch.set(size, performance.now() - started)
}
// ── per-turn overhead, view reads, and the naive baseline ───────────────────────────────────
const noCompaction = JSON.stringify({ trigger: { tokenCount: 1_000_000_000 }, strategy: {} })
const turnsIn = await interleaved(
  SIZES,
  ROUNDS,
  (size) => bench('turn', { user: USER, session: ours.get(size)!, runs: 1, batch: 10, compaction: noCompaction }),
  keepViewShort,
)
const turnsHttp = await interleaved(
  SIZES,
  ROUNDS,
  async (size) => {
    const t = performance.now()
    await api('POST', `/v1/sessions/${ours.get(size)}/turns`, { content: 'hello', compaction: JSON.parse(noCompaction) })
    return [performance.now() - t]
  },
  keepViewShort,
)
const appendView = await interleaved(
  SIZES,
  ROUNDS,
  (size) => bench('append-view', { user: USER, session: ours.get(size)!, runs: 1, batch: 5 }),
  keepViewShort,
)
const fastView = await interleaved(SIZES, ROUNDS, (size) =>
  bench('view', { user: USER, session: ours.get(size)!, runs: 1, batch: 10, mode: 'fast' }),
)
const rpcView = await interleaved(SIZES, ROUNDS, (size) =>
  bench('view', { user: USER, session: ours.get(size)!, runs: 1, batch: 10, mode: 'rpc' }),
)
const naiveSizes = SIZES.filter((size) => size <= NAIVE_MAX)
const naiveView = await interleaved(naiveSizes, Math.max(5, Math.floor(ROUNDS / 4)), (size) =>
  bench('view', { user: USER, session: ours.get(size)!, runs: 1, mode: 'naive' }),
)
const coldView = await interleaved(SIZES, Math.max(5, Math.floor(ROUNDS / 2)), (size) =>
  bench('cold-view', { user: USER, session: ours.get(size)!, runs: 1, batch: 5 }),
)
const viewSizes = new Map<number, number>()
for (const size of SIZES) viewSizes.set(size, (await api('GET', `/v1/sessions/${ours.get(size)}`)).stats.viewEvents)

table(
  'Per-turn service overhead: a whole chat turn (stub model answering at once; trigger checked, not firing)',
  [
    'log events',
    'view events',
    'turn in workerd median',
    'p95',
    'turn over HTTP median',
    'p95',
    'append×2 + view read (3 RPCs) median',
    'p95',
  ],
  SIZES.map((size) => {
    const a = stats(turnsIn.get(size)!)
    const b = stats(turnsHttp.get(size)!)
    const c = stats(appendView.get(size)!)
    return [n(size), viewSizes.get(size)!, ms(a.median), ms(a.p95), ms(b.median), ms(b.p95), ms(c.median), ms(c.p95)]
  }),
)
const largest = SIZES.at(-1)!
const turn1k = stats(turnsIn.get(SIZES[0]!)!).median
console.log(
  `\nturn at ${n(largest)} / at 1k (in workerd, medians): ${ratio(stats(turnsIn.get(largest)!).median, turn1k)} — target ≤ 1.2×`,
)

table(
  'View read: the service (cached view entries, bodies by seq range) vs naive (project the whole log every read), in workerd',
  [
    'log events',
    'view events',
    'service median',
    'p95',
    'with the view sent back over RPC median',
    'naive median',
    'p95',
    'naive / service',
    'cold object (restarted): first read median',
    'p95',
  ],
  SIZES.map((size) => {
    const f = stats(fastView.get(size)!)
    const c = stats(coldView.get(size)!)
    const naive = naiveView.get(size)
    const v = naive ? stats(naive) : null
    return [
      n(size),
      viewSizes.get(size)!,
      ms(f.median),
      ms(f.p95),
      ms(stats(rpcView.get(size)!).median),
      v ? ms(v.median) : 'not run',
      v ? ms(v.p95) : '',
      v ? ratio(v.median, f.median) : '',
      ms(c.median),
      ms(c.p95),
    ]
  }),
)
const naiveLargest = naiveSizes.at(-1)!
const speedup = stats(naiveView.get(naiveLargest)!).median / stats(fastView.get(naiveLargest)!).median
console.log(`\nservice view read vs naive at ${n(naiveLargest)}: ${speedup.toFixed(0)}× faster — target ≥ 50×`)

// ── the closest peer: the Agents SDK's session storage ──────────────────────────────────────
const peers = new Map<number, string>()
for (const size of SIZES) {
  // The peer kept from an earlier run only while its history is within 10% of the size, as ours.
  const kept = `peer-${size}`
  const keptSize = (await api('GET', `/bench/peer/size?peer=${kept}`)) as number
  const peer = keptSize === 0 || (keptSize >= size && keptSize <= size * 1.1) ? kept : `${kept}-${RUN}`
  const had = peer === kept ? keptSize : 0
  const started = performance.now()
  for (let from = had; from < size; ) {
    from = await api('GET', `/bench/peer/seed?peer=${peer}&count=${Math.min(2000, size - from)}&from=${from}`)
  }
  peers.set(size, peer)
  const seconds = (performance.now() - started) / 1000
  console.log(had >= size ? `kept ${peer} from an earlier run` : `seeded ${peer}: ${seconds.toFixed(1)} s`)
}
// The peer builds its search index on its first search and keeps it up on every append after:
// built here, before its appends are measured, so both sides index what they store.
const peerFirstSearch = new Map<number, number>()
for (const size of SIZES) {
  const started = performance.now()
  await api('GET', `/bench/peer/search?peer=${peers.get(size)}&q=decide&runs=1`)
  peerFirstSearch.set(size, performance.now() - started)
}

/** One storage turn on each side, one RPC, timed inside the object, with the rows it read and wrote. */
type StorageSample = { ms: number; rowsRead: number; rowsWritten: number }
let turnsSent = 0
async function storageTurns(size: number, side: 'ours' | 'peer', rounds: number, work: 'turn' | 'tool' = 'turn') {
  const samples: StorageSample[] = []
  for (let round = 0; round < rounds; round++) {
    const target: Record<string, string> = side === 'ours' ? { user: USER, session: ours.get(size)! } : { peer: peers.get(size)! }
    turnsSent += 40
    const query = new URLSearchParams({ ...target, batch: '20', from: String(turnsSent), work })
    samples.push((await api('GET', `/bench/storage-turn?${query}`)) as StorageSample)
    if (side === 'ours') await keepViewShort(size)
  }
  return samples
}
/** The same storage work on both sides, sizes and sides interleaved, a sample a round. */
async function bothSides(rounds: number, work: 'turn' | 'tool') {
  const ours = new Map<number, StorageSample[]>()
  const peer = new Map<number, StorageSample[]>()
  for (let round = 0; round < rounds; round++) {
    for (const size of SIZES) {
      ours.set(size, [...(ours.get(size) ?? []), ...(await storageTurns(size, 'ours', 1, work))])
      peer.set(size, [...(peer.get(size) ?? []), ...(await storageTurns(size, 'peer', 1, work))])
    }
  }
  return { ours, peer }
}
const medianOf = (samples: StorageSample[], key: keyof StorageSample) => stats(samples.map((s) => s[key])).median
const sideBySide = (title: string, sides: Awaited<ReturnType<typeof bothSides>>) =>
  table(
    title,
    [
      'log events',
      'agents/sessions median',
      'p95',
      'ours median',
      'p95',
      'agents / ours',
      'rows read: agents',
      'ours',
      'rows written: agents',
      'ours',
    ],
    SIZES.map((size) => {
      const [p, o] = [sides.peer.get(size)!, sides.ours.get(size)!]
      const [pm, om] = [stats(p.map((s) => s.ms)), stats(o.map((s) => s.ms))]
      const rows = (key: 'rowsRead' | 'rowsWritten') => [medianOf(p, key).toFixed(0), medianOf(o, key).toFixed(0)]
      return [
        n(size),
        ms(pm.median),
        ms(pm.p95),
        ms(om.median),
        ms(om.p95),
        ratio(pm.median, om.median),
        ...rows('rowsRead'),
        ...rows('rowsWritten'),
      ]
    }),
  )
const storageSides = await bothSides(ROUNDS, 'turn')
const storageOurs = storageSides.ours
sideBySide(
  'The same storage work on both sides, measured the same way: one RPC that runs 20 turns inside the object (2 appends + the recent history / the view read back), timed there; rows as counted at ctx.storage.sql.exec',
  storageSides,
)
sideBySide(
  "An agent turn's storage work on both sides, measured the same way (20 a sample inside the object): ours appends the user message with the call, then its result with the reply (the two appends a turn and its continuation make); agents/sessions appends the user message and the call, updates the call's message with the output and appends the reply; both read the view / recent history back",
  await bothSides(Math.max(5, Math.floor(ROUNDS / 2)), 'tool'),
)

// Rows a whole chat turn reads and writes, through the object's RPC (stub model).
const turnRows = new Map<number, { rowsRead: number; rowsWritten: number }[]>()
for (let round = 0; round < 5; round++) {
  for (const size of SIZES) {
    const rows = await api(
      'GET',
      `/bench/turn-rows?user=${USER}&session=${ours.get(size)}&compaction=${encodeURIComponent(noCompaction)}`,
    )
    turnRows.set(size, [...(turnRows.get(size) ?? []), rows])
    await keepViewShort(size)
  }
}
table(
  'SQLite rows a whole chat turn reads and writes (warm object; trigger checked, not firing)',
  ['log events', 'rows read median', 'rows written median'],
  SIZES.map((size) => {
    const rows = turnRows.get(size)!
    return [n(size), stats(rows.map((r) => r.rowsRead)).median, stats(rows.map((r) => r.rowsWritten)).median]
  }),
)

// A tool loop's continuation (results sent back, the model called, tool event + reply written).
const continuationRows = new Map<number, { rowsRead: number; rowsWritten: number }>()
const continuations = await interleaved(
  SIZES,
  ROUNDS,
  async (size) => {
    const query = new URLSearchParams({ user: USER, session: ours.get(size)!, runs: '1', batch: '5', compaction: noCompaction })
    const { samples, rows } = await api('GET', `/bench/tool-continuation?${query}`)
    continuationRows.set(size, rows)
    return samples
  },
  keepViewShort,
)
table(
  'A tool continuation: toolResults for a pending call, the model called with them, the tool event and reply written (stub model; in workerd)',
  ['log events', 'view events', 'continuation median', 'p95', 'rows read', 'rows written'],
  SIZES.map((size) => {
    const t = stats(continuations.get(size)!)
    const rows = continuationRows.get(size)!
    return [n(size), viewSizes.get(size)!, ms(t.median), ms(t.p95), rows.rowsRead, rows.rowsWritten]
  }),
)
console.log(
  `\ncontinuation at ${n(largest)} / at 1k (medians): ${ratio(stats(continuations.get(largest)!).median, stats(continuations.get(SIZES[0]!)!).median)} — target ≤ 1.2×`,
)

// The front door: a turn through /v1/chat/completions' use case against /turns' on the same sessions.
type LogEvent = {
  type: string
  synthetic: boolean
  metadata: Record<string, unknown>
  message?: {
    role: string
    content: string | null
    toolCalls?: { id: string; name: string; arguments: string }[]
    toolResponses?: { id: string; data: string }[]
  }
}
/** A session's last `count` messages as its client holds them: the OpenAI wire shape. */
async function clientHistory(id: string, count: number): Promise<unknown[]> {
  const { version } = await api('GET', `/v1/sessions/${id}`)
  const events: LogEvent[] = []
  for (let after: number | null = Math.max(0, version - count - 200); after !== null; ) {
    const page = await api('GET', `/v1/sessions/${id}/events?after=${after}&limit=1000`)
    events.push(...page.events)
    after = page.nextAfter
  }
  const messages = events.flatMap((e): unknown[] => {
    const m = e.message
    if (e.type !== 'MESSAGE' || e.synthetic || m!.role === 'system' || e.metadata.interrupted) return []
    if (m!.role === 'tool') return m!.toolResponses!.map((r) => ({ role: 'tool', tool_call_id: r.id, content: r.data }))
    const calls = (m!.toolCalls ?? []).map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
    return [{ role: m!.role, content: m!.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
  })
  return messages.slice(-count)
}
const frontDoor = async (size: number, history: number) => {
  // 10 turns a sample: the clock's 3 ms step is 0.3 ms a turn (one step of a median of 5 turns was 0.6 ms, 7% of a turn).
  const query = new URLSearchParams({ user: USER, session: ours.get(size)!, runs: '1', batch: '10', compaction: noCompaction })
  const response = await worker.fetch(`http://bench/bench/front-door?${query}`, {
    method: 'POST',
    body: JSON.stringify({ history: history === 0 ? [] : await clientHistory(ours.get(size)!, history) }),
  })
  if (!response.ok) throw new Error(`front door: ${response.status} ${await response.text()}`)
  return (await response.json()) as { samples: number[]; rows: { rowsRead: number; rowsWritten: number } }
}
const frontDoorRows = new Map<string, { rowsRead: number; rowsWritten: number }>()
const onlyNew = await interleaved(
  SIZES,
  ROUNDS,
  async (size) => {
    const { samples, rows } = await frontDoor(size, 0)
    frontDoorRows.set(`${size}/0`, rows)
    return samples
  },
  keepViewShort,
)
const sameTurns = await interleaved(
  SIZES,
  ROUNDS,
  (size) => bench('turn', { user: USER, session: ours.get(size)!, runs: 1, batch: 10, compaction: noCompaction }),
  keepViewShort,
)
const resending = await interleaved(
  SIZES,
  Math.max(5, Math.floor(ROUNDS / 2)),
  async (size) => {
    const { samples, rows } = await frontDoor(size, 1000)
    frontDoorRows.set(`${size}/1000`, rows)
    return samples
  },
  keepViewShort,
)
table(
  'The front door: a chat-completions turn (only the new message, or 1,000 messages of history resent) against a /turns turn on the same session (stub model; in workerd)',
  [
    'log events',
    '/turns median',
    'front door, only new median',
    'p95',
    'front door / turns',
    'rows read / written',
    'resending 1,000 messages median',
    'p95',
    'rows read / written',
  ],
  SIZES.map((size) => {
    const t = stats(sameTurns.get(size)!)
    const f = stats(onlyNew.get(size)!)
    const r = stats(resending.get(size)!)
    const rows = (key: string) => `${frontDoorRows.get(key)!.rowsRead} / ${frontDoorRows.get(key)!.rowsWritten}`
    return [
      n(size),
      ms(t.median),
      ms(f.median),
      ms(f.p95),
      ratio(f.median, t.median),
      rows(`${size}/0`),
      ms(r.median),
      ms(r.p95),
      rows(`${size}/1000`),
    ]
  }),
)
console.log(
  `\nresending 1,000 messages at ${n(largest)} / at 1k (medians): ${ratio(stats(resending.get(largest)!).median, stats(resending.get(SIZES[0]!)!).median)} — the cost follows the request, not the log`,
)

// Searches of a rare phrase (one event's number) and of a word in every event.
const searchRows = new Map<string, number>()
// A rare phrase is timed over 20 searches a sample (the clock's 3 ms step is 0.15 ms a search), a common word over 5.
const batchOf = (key: string) => (key === 'rare' ? '20' : '5')
const searchOf = (word: (size: number) => string, key: string) =>
  interleaved(SIZES, ROUNDS, async (size) => {
    const query = new URLSearchParams({ user: USER, session: ours.get(size)!, runs: '1', batch: batchOf(key), q: word(size) })
    const { samples, rows } = await api('GET', `/bench/search?${query}`)
    searchRows.set(`${size}/${key}`, rows.rowsRead)
    return samples
  })
const rare = await searchOf((size) => `"Message ${Math.floor(size / 2)}"`, 'rare')
const common = await searchOf(() => 'rollout', 'common')
// The peer's search of the same words (it quotes a query as one phrase and ranks all its matches).
const peerSearchOf = (word: (size: number) => string, key: string) =>
  interleaved(SIZES, Math.max(3, Math.floor(ROUNDS / 2)), async (size) => {
    const query = new URLSearchParams({ peer: peers.get(size)!, runs: '1', batch: batchOf(key), q: word(size) })
    const { samples, rows } = await api('GET', `/bench/peer/search?${query}`)
    searchRows.set(`${size}/peer-${key}`, rows.rowsRead)
    return samples
  })
const peerRare = await peerSearchOf((size) => `Message ${Math.floor(size / 2)}`, 'rare')
const peerCommon = await peerSearchOf(() => 'rollout', 'common')
/** A search table: each size's first search, then the rare phrase's and the common word's times and rows. */
const searchTable = (
  title: string,
  first: Map<number, number>,
  found: Record<'rare' | 'common', Map<number, number[]>>,
  key = '',
) =>
  table(
    title,
    [
      'log events',
      'first search',
      'a rare phrase median',
      'p95',
      'rows read',
      'a word in every event median',
      'p95',
      'rows read',
    ],
    SIZES.map((size) => {
      const [r, c] = [stats(found.rare.get(size)!), stats(found.common.get(size)!)]
      const rowsOf = (kind: string) => Math.round(searchRows.get(`${size}/${key}${kind}`)!)
      return [n(size), ms(first.get(size)!), ms(r.median), ms(r.p95), rowsOf('rare'), ms(c.median), ms(c.p95), rowsOf('common')]
    }),
  )
searchTable(
  'Search inside the object (FTS5; the query parsed as the route does; 20 hits with their events, a rare phrase timed over 20 searches a sample, a common word over 5; first search: the index caught up, over HTTP)',
  firstSearch,
  { rare, common },
)
searchTable(
  'The same searches on agents/sessions, timed the same way around the RPC (its FTS5 index, built on its first search in one statement; it ranks every match; 20 hits)',
  peerFirstSearch,
  { rare: peerRare, common: peerCommon },
  'peer-',
)
for (const [kind, ours, theirs] of [
  ['a rare phrase', rare, peerRare],
  ['a word in every event', common, peerCommon],
] as const) {
  const at = (size: number) => `${ratio(stats(theirs.get(size)!).median, stats(ours.get(size)!).median)} at ${n(size)}`
  console.log(`\nsearch, ${kind}: agents/sessions / ours ${SIZES.map(at).join(', ')}`)
}

// ── round two's other paths ──────────────────────────────────────────────────────────────
// GET /context's work through the object, at each size.
const contextRows = new Map<number, number>()
const contexts = await interleaved(SIZES, ROUNDS, async (size) => {
  const query = new URLSearchParams({ user: USER, session: ours.get(size)!, runs: '1', batch: '5' })
  const { samples, rows } = await api('GET', `/bench/context?${query}`)
  contextRows.set(size, rows.rowsRead)
  return samples
})
// The raw-SQLite floor of a turn's storage work (two plain inserts, the view's rows read by seq), same method as ours.
const floors = new Map<number, StorageSample[]>()
await interleaved(SIZES, Math.max(5, Math.floor(ROUNDS / 2)), async (size) => {
  turnsSent += 40
  const query = new URLSearchParams({ user: USER, session: ours.get(size)!, batch: '20', from: String(turnsSent) })
  const sample = (await api('GET', `/bench/floor-turn?${query}`)) as StorageSample
  floors.set(size, [...(floors.get(size) ?? []), sample])
  return [sample.ms]
})
table(
  'GET /context and the storage floor, inside workerd (context: 5 calls a sample through the object; floor: 20 turns a sample inside it)',
  ['log events', 'context median', 'p95', 'rows read', 'storage turn (ours)', 'raw-SQLite floor', 'ours / floor'],
  SIZES.map((size) => {
    const c = stats(contexts.get(size)!)
    const ours = medianOf(storageOurs.get(size)!, 'ms')
    const floor = medianOf(floors.get(size)!, 'ms')
    return [n(size), ms(c.median), ms(c.p95), Math.round(contextRows.get(size)!), ms(ours), ms(floor), ratio(ours, floor)]
  }),
)
console.log(
  `\nGET /context at ${n(largest)} / at 1k (medians): ${ratio(stats(contexts.get(largest)!).median, stats(contexts.get(SIZES[0]!)!).median)}`,
)

// What the search index's inserts cost a turn's storage work: the same work with them left out
// (bench only; the events written so are simply not searchable), at each size.
const unindexed = new Map<number, StorageSample[]>()
await interleaved(SIZES, Math.max(5, Math.floor(ROUNDS / 2)), async (size) => {
  turnsSent += 40
  const query = new URLSearchParams({ user: USER, session: ours.get(size)!, batch: '20', from: String(turnsSent), search: 'off' })
  const sample = (await api('GET', `/bench/storage-turn?${query}`)) as StorageSample
  unindexed.set(size, [...(unindexed.get(size) ?? []), sample])
  await keepViewShort(size)
  return [sample.ms]
})
table(
  "A turn's storage work with and without the search index's inserts (20 turns a sample inside the object)",
  ['log events', 'with the index', 'without', 'the index costs', 'rows written with / without'],
  SIZES.map((size) => {
    const withIndex = medianOf(storageOurs.get(size)!, 'ms')
    const without = medianOf(unindexed.get(size)!, 'ms')
    return [
      n(size),
      ms(withIndex),
      ms(without),
      ms(withIndex - without),
      `${medianOf(storageOurs.get(size)!, 'rowsWritten')} / ${medianOf(unindexed.get(size)!, 'rowsWritten')}`,
    ]
  }),
)

// The request limit's cost: a GET through the whole app in workerd, the limit on (always admitted) or off.
const limited = await interleaved([0, 1], ROUNDS, (on) =>
  bench('limited-get', { session: ours.get(SIZES[0]!)!, on, runs: 1, batch: 10 }),
)
table(
  'A GET /v1/sessions/:id through the app in workerd, RATE_LIMIT_REQUESTS off and on (10 a sample)',
  ['request limit', 'median', 'p95'],
  [0, 1].map((on) => {
    const s = stats(limited.get(on)!)
    return [on ? 'on (one RPC to the user object: 1 row read, 1 written)' : 'off', ms(s.median), ms(s.p95)]
  }),
)

// Time to the first streamed byte, over HTTP from Node: a streamed turn through the service, and
// the same request straight to the fake upstream.
async function firstByte(url: string, init: RequestInit): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, init)
  const reader = response.body!.getReader()
  await reader.read()
  const elapsed = performance.now() - started
  while (!(await reader.read()).done) {}
  return elapsed
}
const serviceUrl = new URL('/', await worker.url).href
const viaService: number[] = []
const direct: number[] = []
for (let i = 0; i < ROUNDS * 2; i++) {
  const content = `first byte ${i} of a streamed reply`
  viaService.push(
    await firstByte(`${serviceUrl}v1/sessions/ttfb-${RUN}/turns`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content, stream: true, compaction: false }),
    }),
  )
  direct.push(
    await firstByte(`${upstream.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content }] }),
    }),
  )
}
const [svc, dir] = [stats(viaService), stats(direct)]
table(
  `Time to the first streamed byte over HTTP (${ROUNDS * 2} each, one session growing from empty)`,
  ['path', 'median', 'p95'],
  [
    ['a streamed turn through the service (dev server, Worker, session object, upstream)', ms(svc.median), ms(svc.p95)],
    ['the same request straight to the fake upstream', ms(dir.median), ms(dir.p95)],
    ['added by the service', ms(svc.median - dir.median), ''],
  ],
)

for (const size of SIZES) await api('GET', `/bench/peer/overlay?peer=${peers.get(size)}&upTo=${size}`)
const peerOverlay = await interleaved(SIZES, Math.max(5, Math.floor(ROUNDS / 2)), async (size) =>
  (await storageTurns(size, 'peer', 1)).map((s) => s.ms),
)
table(
  'agents/sessions with a compaction overlay over the older half (same method as above)',
  ['log events', 'median', 'p95', 'agents+overlay / ours'],
  SIZES.map((size) => {
    const o = stats(peerOverlay.get(size)!)
    return [n(size), ms(o.median), ms(o.p95), ratio(o.median, medianOf(storageOurs.get(size)!, 'ms'))]
  }),
)

// ── compaction passes ───────────────────────────────────────────────────────────────────────
const passSizes = [100, 1_000, 10_000]
const passRows: (string | number)[][] = []
for (const size of passSizes) {
  const samples: number[] = []
  for (let r = 0; r < 5; r++) {
    const id = `pass-${size}-${r}-${RUN}`
    await seed(id, size, size)
    samples.push(...(await bench('compact', { user: USER, session: id, keep: Math.floor(size / 2) })))
  }
  const s = stats(samples)
  passRows.push([n(size), ms(s.median), ms(s.p95)])
}
table(
  'A compaction pass (no summarizer, keeping half the view) on views of N events, in workerd (5 sessions each)',
  ['view events', 'median', 'p95'],
  passRows,
)

// ── token estimates over an event's life ───────────────────────────────────────────────────
{
  const id = `estimates-${RUN}`
  const before = (await api('GET', `/bench/estimates?user=${USER}&session=log-1000`)).calls as number
  await seed(id, 2_000, 500)
  const summarizing = { trigger: { turnCount: 5 }, strategy: { window: { lastTurns: 2 }, summarizer: {} } }
  for (let i = 0; i < 20; i++) await api('POST', `/v1/sessions/${id}/turns`, { content: message(i), compaction: summarizing })
  await bench('cold-view', { user: USER, session: id, runs: 3 })
  const { calls: after, messages } = await api('GET', `/bench/estimates?user=${USER}&session=${id}`)
  const calls = after - before // estimates are counted per isolate: only this session ran meanwhile
  table(
    'Tokenizer calls over the life of a session object (appends, 20 turns with summaries, compactions, cold reloads)',
    ['message events in the log', 'estimates computed', 'per event'],
    [[n(messages), n(calls), (calls / messages).toFixed(3)]],
  )
}

// ── throughput ─────────────────────────────────────────────────────────────────────────────
async function throughput(total: number, inFlight: number, sessionFor: (i: number) => string) {
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++
        await api('POST', `/v1/sessions/${sessionFor(i)}/events`, { events: turnEvents(i) })
      }
    }),
  )
  return total / ((performance.now() - started) / 1000)
}
const one = await throughput(600, 24, () => `hot-session-${RUN}`)
const many = await throughput(600, 24, (i) => `spread-${i % 60}-${RUN}`)
table(
  'Appends (2 events each) over HTTP, 24 in flight',
  ['target', 'appends/s'],
  [
    ['one session', one.toFixed(0)],
    ['60 sessions in parallel', many.toFixed(0)],
  ],
)

await worker.dispose()
upstream.server.close()

// ── bundle size ────────────────────────────────────────────────────────────────────────────
const out = '.bench/bundle'
rmSync(out, { recursive: true, force: true })
execFileSync('wrangler', ['deploy', '--dry-run', '--outdir', out], {
  stdio: 'ignore',
  env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
})
const files = readdirSync(out).filter((f) => f.endsWith('.js'))
const raw = files.reduce((sum, f) => sum + statSync(join(out, f)).size, 0)
const gz = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0)
table(
  'Worker bundle (wrangler deploy --dry-run)',
  ['files', 'size', 'gzip'],
  [[files.length, `${(raw / 1024).toFixed(0)} KiB`, `${(gz / 1024).toFixed(0)} KiB`]],
)
