/**
 * Benchmarks through the real Worker in local workerd (wrangler's dev server, no network): HTTP,
 * auth, the session Durable Object and its SQLite storage. The goal for a turn's bookkeeping
 * (append + view read) is a cost that does not grow with the log.
 */
import { sign } from 'hono/jwt'
import { unstable_startWorker } from 'wrangler'
import { ms, table } from './stats'

const SECRET = 'bench-secret'
const SIZES = [1_000, 10_000, 100_000]
const BATCH = 1000

const worker = await unstable_startWorker({
  config: 'wrangler.toml',
  bindings: { JWT_SECRET: { type: 'plain_text', value: SECRET } },
  dev: { server: { port: 0 }, persist: false, inspector: false, logLevel: 'error' },
})
await worker.ready
const token = await sign({ sub: 'bench', exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256')

async function api(method: string, path: string, body?: unknown) {
  const response = await worker.fetch(`http://bench${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
  return JSON.parse(text) as Record<string, unknown>
}

const turn = (i: number) => [
  { message: { role: 'user', content: `Question ${i}: what did we decide about the rollout plan and its open items?` } },
  { message: { role: 'assistant', content: `Answer ${i}: we ship in two stages; the open items are the migration and the on-call rota.` } },
]

/** A session whose log has `size` events and whose view is kept short by compaction, as a live one would be. */
async function seed(size: number): Promise<string> {
  const id = `bench-${size}-${Date.now()}`
  let written = 0
  let i = 0
  while (written < size) {
    const events = Array.from({ length: Math.min(BATCH, size - written) / 2 }, () => turn(i++)).flat()
    await api('POST', `/v1/sessions/${id}/events`, { events })
    written += events.length
    const result = await api('POST', `/v1/sessions/${id}/compact`, { strategy: { window: { lastTurns: 20 } } })
    if (!result.unchanged) written += 1
  }
  return id
}

// Seed every size first, then measure them in interleaved rounds, so drift hits all alike.
const sessions: { size: number; id: string; seconds: number; appendAndView: number[]; view: number[] }[] = []
for (const size of SIZES) {
  const started = performance.now()
  const id = await seed(size)
  sessions.push({ size, id, seconds: (performance.now() - started) / 1000, appendAndView: [], view: [] })
}
const ROUNDS = 300
let i = 1_000_000
for (let round = 0; round < ROUNDS; round++) {
  for (const session of sessions) {
    let t = performance.now()
    await api('POST', `/v1/sessions/${session.id}/events`, { events: turn(i++) })
    await api('GET', `/v1/sessions/${session.id}/view`)
    session.appendAndView.push(performance.now() - t)
    t = performance.now()
    await api('GET', `/v1/sessions/${session.id}/view`)
    session.view.push(performance.now() - t)
  }
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.ceil(sorted.length * 0.95) - 1]! }
}
const rows: (string | number)[][] = []
for (const session of sessions) {
  const stats = (await api('GET', `/v1/sessions/${session.id}`)).stats as { events: number; viewEvents: number }
  const both = summary(session.appendAndView)
  const view = summary(session.view)
  rows.push([session.size.toLocaleString('en'), stats.events.toLocaleString('en'), stats.viewEvents, ms(both.median), ms(both.p95), ms(view.median), ms(view.p95), `${session.seconds.toFixed(1)} s`])
}
table(
  `Append (user + assistant) + view read through the Worker and its Durable Object (${ROUNDS} rounds, interleaved)`,
  ['log events (seeded)', 'log events (end)', 'view events (end)', 'append + view median', 'p95', 'view read median', 'p95', 'seeding took'],
  rows,
)
const ratio = summary(sessions.at(-1)!.appendAndView).median / summary(sessions[0]!.appendAndView).median
console.log(`\nappend + view median at ${sessions.at(-1)!.size.toLocaleString('en')} events / at ${sessions[0]!.size.toLocaleString('en')}: ${ratio.toFixed(2)}×`)
console.log('End-to-end times include the local dev server\'s proxy (~8 ms per request on this machine).')
await worker.dispose()
