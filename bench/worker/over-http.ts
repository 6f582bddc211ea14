/** Measurements taken from Node over HTTP, end to end (the dev server's proxy in them), and the bundle's size. */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { type Measured, message } from '../shared'
import type { BenchWorker } from './client'
import { RUN, USER } from './config'
import { seed, turnEvents } from './seeding'

/** One sample: how long `call` took, from here. */
export async function timedHere(call: () => Promise<unknown>): Promise<Measured> {
  const started = performance.now()
  await call()
  return { samples: [performance.now() - started] }
}

/** Time to the first byte of a streamed answer (the rest read to the end, untimed). */
async function firstByte(url: string, init: RequestInit): Promise<number> {
  const started = performance.now()
  const reader = (await fetch(url, init)).body!.getReader()
  await reader.read()
  const elapsed = performance.now() - started
  while (!(await reader.read()).done) {}
  return elapsed
}

/** The first streamed byte of a turn through the service (a session growing from empty), or of the same request straight to the fake upstream. */
export async function firstByteVia(worker: BenchWorker, path: 'service' | 'direct', round: number): Promise<Measured> {
  const content = `first byte ${round} of a streamed reply`
  const json = { 'Content-Type': 'application/json' }
  const ms =
    path === 'service'
      ? await firstByte(`${worker.url}v1/sessions/ttfb-${RUN}/turns`, {
          method: 'POST',
          headers: { Authorization: worker.authorization, ...json },
          body: JSON.stringify({ content, stream: true, compaction: false }),
        })
      : await firstByte(`${worker.upstreamUrl}/v1/chat/completions`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content }] }),
        })
  return { samples: [ms] }
}

/** Appends of a turn's two events over HTTP, `inFlight` at a time, spread over `sessions` sessions: one sample, appends/s. */
export async function appendsPerSecond({ api }: BenchWorker, sessions: number, total = 600, inFlight = 24): Promise<Measured> {
  const sessionFor = (i: number) => (sessions === 1 ? `hot-session-${RUN}` : `spread-${i % sessions}-${RUN}`)
  let next = 0
  const started = performance.now()
  const appender = async () => {
    for (let i = next++; i < total; i = next++)
      await api('POST', `/v1/sessions/${sessionFor(i)}/events`, { events: turnEvents(i) })
  }
  await Promise.all(Array.from({ length: inFlight }, appender))
  return { samples: [total / ((performance.now() - started) / 1000)] }
}

/**
 * The token estimates one session object computes over its life: appends, 20 turns with
 * summaries, compactions, cold reloads. Estimates are counted per isolate (read through any
 * session, here `counter`): only this session runs meanwhile.
 */
export async function tokenizerCalls(worker: BenchWorker, counter: string): Promise<Measured> {
  const { api, bench } = worker
  const id = `estimates-${RUN}`
  const before = (await api('GET', `/bench/estimates?user=${USER}&session=${counter}`)).calls as number
  await seed(worker, id, 2_000, 500)
  const summarizing = { trigger: { turnCount: 5 }, strategy: { window: { lastTurns: 2 }, summarizer: {} } }
  for (let i = 0; i < 20; i++) await api('POST', `/v1/sessions/${id}/turns`, { content: message(i), compaction: summarizing })
  await bench('view/cold', { user: USER, session: id, runs: 3 })
  const { calls, messages } = await api('GET', `/bench/estimates?user=${USER}&session=${id}`)
  return { samples: [(calls - before) / messages], counts: { messages, calls: calls - before } }
}

/** The Worker's bundle as `wrangler deploy --dry-run` writes it: its files, bytes and gzipped bytes. */
export async function bundleSize(): Promise<Measured> {
  const out = '.bench/bundle'
  rmSync(out, { recursive: true, force: true })
  execFileSync('wrangler', ['deploy', '--dry-run', '--outdir', out], {
    stdio: 'ignore',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })
  const files = readdirSync(out).filter((f) => f.endsWith('.js'))
  const bytes = files.reduce((sum, f) => sum + statSync(join(out, f)).size, 0)
  const gzipped = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0)
  return { samples: [], counts: { files: files.length, bytes, gzipped } }
}
