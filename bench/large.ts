/**
 * Sessions of any size: the view read and a compaction pass on views that were never compacted
 * (10k, 100k and 1M events), through the real Worker in local workerd (wrangler's dev server,
 * offline), over HTTP only — so the same suite runs against an older tree for a before/after.
 * Memory is the workerd process's resident set (Linux /proc), the stand-in for the isolate's:
 * its peak during each request (the high-water mark, reset before it) above what it was before.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { sign } from 'hono/jwt'
import { unstable_startWorker } from 'wrangler'
import { ms, table } from './stats'

const SECRET = 'bench-secret'
const SIZES = process.env.BENCH_SIZES?.split(',').map(Number) ?? [10_000, 100_000, 1_000_000]
const READS = Number(process.env.BENCH_READS ?? 5)
const STATE = '.bench/state-large'
const RUN = Date.now().toString(36)

rmSync(STATE, { recursive: true, force: true })
const worker = await unstable_startWorker({
  config: 'wrangler.toml',
  bindings: {
    JWT_SECRET: { type: 'plain_text', value: SECRET },
    // Seeding is far more than 600 requests a minute from one user: the request limit is off here.
    RATE_LIMIT_REQUESTS: { type: 'plain_text', value: '0' },
  },
  dev: { server: { port: 0 }, persist: STATE, inspector: false, logLevel: 'error' },
})
await worker.ready
const token = await sign({ sub: 'bench', exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, SECRET, 'HS256')
const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }

/** The workerd processes started for this suite (descendants of this process). */
function workerdPids(): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
  const children = new Map<number, number[]>()
  for (const [pid, ppid] of rows) children.set(Number(ppid), [...(children.get(Number(ppid)) ?? []), Number(pid)])
  const found: number[] = []
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (rows.find((row) => Number(row[0]) === child)?.[2]?.startsWith('workerd')) found.push(child)
      walk(child)
    }
  }
  walk(process.pid)
  return found
}
if (workerdPids().length === 0) throw new Error('no workerd process found')

/** Summed over the workerd processes (the dev server starts more than one, some after it is ready). */
const status = (key: 'VmRSS' | 'VmHWM') =>
  workerdPids().reduce((sum, pid) => {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${key}:\\s+(\\d+) kB`))
    return sum + Number(line?.[1] ?? 0) * 1024
  }, 0)
/** Starts a peak measurement: the high-water mark is reset to the current resident set. */
const resetPeak = () => {
  for (const pid of workerdPids()) writeFileSync(`/proc/${pid}/clear_refs`, '5')
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/** Bodies smaller than this are kept to be read; larger ones are only counted. */
const SMALL = 1024 * 1024

/** One request, its body read to the end and counted (never parsed: it may be hundreds of MB). */
async function request(method: string, path: string, body?: unknown) {
  resetPeak()
  const before = status('VmRSS')
  const started = performance.now()
  const response = await worker.fetch(`http://bench${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  let bytes = 0
  const small: Uint8Array[] = []
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes < SMALL) small.push(chunk)
    bytes += chunk.length
  }
  const time = performance.now() - started
  /** The body, when it is small enough to keep (an error, a compacted view). */
  const json = () => (bytes < SMALL ? JSON.parse(Buffer.concat(small).toString('utf8')) : null)
  return { status: response.status, json, bytes, time, peak: status('VmHWM') - before }
}

async function seed(id: string, count: number) {
  for (let from = 0; from < count; from += 1000) {
    const events = Array.from({ length: Math.min(1000, count - from) }, (_, k) => ({
      message: {
        role: (from + k) % 2 === 0 ? 'user' : 'assistant',
        content: `Message ${from + k}: which items of the rollout plan are open?`,
      },
    }))
    const result = await request('POST', `/v1/sessions/${id}/events`, { events })
    if (result.status !== 201) throw new Error(`seeding ${id}: ${result.status} ${JSON.stringify(result.json())}`)
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const outcome = (results: { status: number; json: () => any }[]) => {
  const failed = results.find((r) => r.status !== 200)
  return failed ? `${failed.status} ${failed.json()?.error?.code ?? ''}` : '200'
}

const rows: (string | number)[][] = []
await request('GET', '/v1/sessions/warm-up') // a 404 that loads the Worker and an object
const baseline = status('VmRSS')
console.log(`\nworkerd resident once warm: ${mb(baseline)}; ${READS} reads per view and format.`)
for (const size of SIZES) {
  const id = `flat-${size}-${RUN}`
  const seeding = performance.now()
  await seed(id, size)
  const seeded = status('VmRSS')
  console.log(`seeded ${id}: ${((performance.now() - seeding) / 1000).toFixed(1)} s, workerd resident ${mb(seeded)}`)
  const reads = []
  for (let i = 0; i < READS; i++) reads.push(await request('GET', `/v1/sessions/${id}/view`))
  const openai = []
  for (let i = 0; i < READS; i++) openai.push(await request('GET', `/v1/sessions/${id}/view?format=openai`))
  const pass = await request('POST', `/v1/sessions/${id}/compact`, { strategy: { window: { lastEvents: 20 } } })
  const after = await request('GET', `/v1/sessions/${id}/view`)
  const ok = (list: { status: number }[]) => list.every((r) => r.status === 200)
  rows.push([
    size.toLocaleString('en'),
    outcome(reads),
    ok(reads) ? mb(median(reads.map((r) => r.bytes))) : '',
    ok(reads) ? ms(median(reads.map((r) => r.time))) : '',
    mb(Math.max(...reads.map((r) => r.peak))),
    outcome(openai),
    ok(openai) ? ms(median(openai.map((r) => r.time))) : '',
    mb(Math.max(...openai.map((r) => r.peak))),
    outcome([pass]),
    ms(pass.time),
    mb(pass.peak),
    after.status === 200 ? (after.json()?.events.length ?? 'large') : after.status,
    mb(seeded - baseline),
    mb(status('VmRSS') - baseline),
  ])
}

table(
  'Views never compacted: GET /view (both formats) and POST /compact (lastEvents 20), over HTTP in local workerd; memory = workerd resident set',
  [
    'view events',
    'GET /view',
    'body',
    'median',
    'peak RSS growth',
    '?format=openai',
    'median',
    'peak RSS growth',
    'POST /compact',
    'time',
    'peak RSS growth',
    'view after',
    'RSS growth: seeded',
    'at the end',
  ],
  rows,
)

await worker.dispose()
rmSync(STATE, { recursive: true, force: true })
