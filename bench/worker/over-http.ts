/** Measurements taken from Node over HTTP, end to end (the dev server's proxy in them), and the bundle's size. */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { unstable_startWorker } from 'wrangler'
import { type Measured, message } from '../shared'
import { type BenchWorker, benchBindings } from './client'
import { RUN, USER } from './config'
import { seed, turnEvents } from './seeding'

/** One sample: how long `call` took, from here. */
export async function timedHere(call: () => Promise<unknown>): Promise<Measured> {
  const started = performance.now()
  await call()
  return { samples: [performance.now() - started] }
}

/**
 * Time to the first byte of a streamed answer (the rest read to the end, untimed), and how much of
 * it passed before the upstream had the model request's head and after (`heard`: when it last had one).
 */
async function firstByte(url: string, init: RequestInit, heard: () => number): Promise<Measured> {
  const started = performance.now()
  const reader = (await fetch(url, init)).body!.getReader()
  await reader.read()
  const elapsed = performance.now() - started
  // The upstream's last request, when it came during this one (none: a path that calls no upstream).
  const reached = heard() >= started ? heard() - started : Number.NaN
  while (!(await reader.read()).done) {}
  return { samples: [elapsed], counts: { reached, after: elapsed - reached } }
}

/**
 * The paths a first byte is timed on: the service's four streamed doors; a bare Worker proxying,
 * the same through an object that proxies or relays in the service's frames, one answering at
 * once; the upstream itself.
 */
export type FirstBytePath =
  | 'service'
  | 'chat'
  | 'messages'
  | 'responses'
  | 'proxy'
  | 'objectProxy'
  | 'objectRelay'
  | 'answer'
  | 'direct'

/**
 * The first streamed byte of a turn through one of the service's doors (a session per door,
 * growing from empty; the doors get only the new message), of the same model request through a
 * bare Worker that only proxies it to the same upstream (the floor for any Worker), or straight
 * to the fake upstream.
 */
export async function firstByteVia(worker: BenchWorker, path: FirstBytePath, round: number): Promise<Measured> {
  const content = `first byte ${round} of a streamed reply`
  const json = { 'Content-Type': 'application/json' }
  const service = { Authorization: worker.authorization, ...json, 'X-Session-Id': `ttfb-${path}-${RUN}` }
  const upstreamRequest = JSON.stringify({ model: 'echo', stream: true, messages: [{ role: 'user', content }] })
  const post = (url: string, headers: Record<string, string>, body: string) =>
    firstByte(url, { method: 'POST', headers, body }, worker.upstreamHeard)
  const requests: Record<FirstBytePath, () => Promise<Measured>> = {
    service: () =>
      post(`${worker.url}v1/sessions/ttfb-${RUN}/turns`, service, JSON.stringify({ content, stream: true, compaction: false })),
    chat: () => post(`${worker.url}v1/chat/completions`, service, upstreamRequest),
    messages: () =>
      post(
        `${worker.url}v1/messages`,
        service,
        JSON.stringify({ model: 'echo', max_tokens: 1024, stream: true, messages: [{ role: 'user', content }] }),
      ),
    responses: () => post(`${worker.url}v1/responses`, service, JSON.stringify({ model: 'echo', stream: true, input: content })),
    proxy: () => post(`${worker.url}bare-proxy`, json, upstreamRequest),
    objectProxy: () => post(`${worker.url}object-proxy`, json, upstreamRequest),
    objectRelay: () => post(`${worker.url}object-relay`, json, upstreamRequest),
    answer: () => post(`${worker.url}bare-answer`, json, upstreamRequest),
    direct: () => post(`${worker.upstreamUrl}/v1/chat/completions`, json, upstreamRequest),
  }
  return requests[path]()
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
  execFileSync('wrangler', ['deploy', '--dry-run', '--outdir', out, '--metafile', join(out, 'meta.json')], {
    stdio: 'ignore',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  })
  const files = readdirSync(out).filter((f) => f.endsWith('.js'))
  const bytes = files.reduce((sum, f) => sum + statSync(join(out, f)).size, 0)
  const gzipped = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0)
  return { samples: [], counts: { files: files.length, bytes, gzipped, ...bundleContents(join(out, 'meta.json')) } }
}

/**
 * What the bundle holds, from esbuild's metafile: the bytes each package (`in:zod`) and each
 * layer of `src` (`in:src/store`) put into the output.
 */
function bundleContents(metafile: string): Record<string, number> {
  const meta = JSON.parse(readFileSync(metafile, 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>
  }
  const contents: Record<string, number> = {}
  for (const [name, output] of Object.entries(meta.outputs)) {
    if (!name.endsWith('.js')) continue
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const inPackage = input.split('node_modules/').at(-1)!
      const part = input.includes('node_modules/')
        ? inPackage
            .split('/')
            .slice(0, inPackage.startsWith('@') ? 2 : 1)
            .join('/')
        : (/src\/[^/]+/.exec(input)?.[0] ?? input.split('/').slice(0, 2).join('/'))
      contents[`in:${part}`] = (contents[`in:${part}`] ?? 0) + bytesInOutput
    }
  }
  return contents
}

/** Lines of an export in parts the import takes (at most this many events each). */
const IMPORT_PART = 20_000

/**
 * A session exported as `jsonl` and imported into a new id in parts, over HTTP: one sample, the
 * export's time; the counts say events per second each way and how the export streamed (its
 * chunks and the largest one: bounded, whatever the session's size).
 */
export async function exportAndImport(worker: BenchWorker, id: string, size: number): Promise<Measured> {
  const headers = { Authorization: worker.authorization }
  const started = performance.now()
  const response = await fetch(`${worker.url}v1/sessions/${id}/export`, { headers })
  if (!response.ok) throw new Error(`export: ${response.status} ${await response.text()}`)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  const lines: string[] = []
  let [bytes, chunks, largest, rest] = [0, 0, 0, '']
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.length
    chunks += 1
    largest = Math.max(largest, read.value.length)
    const pieces = (rest + decoder.decode(read.value, { stream: true })).split('\n')
    rest = pieces.pop()!
    lines.push(...pieces)
  }
  const exportMs = performance.now() - started
  const copy = `moved-${RUN}-${size}`
  const importStarted = performance.now()
  for (let from = 1; from < lines.length; from += IMPORT_PART) {
    const part = from === 1 ? lines.slice(0, IMPORT_PART + 1) : lines.slice(from, from + IMPORT_PART)
    const imported = await fetch(`${worker.url}v1/sessions/${copy}/import`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/x-ndjson' },
      body: part.join('\n'),
    })
    if (!imported.ok) throw new Error(`import: ${imported.status} ${await imported.text()}`)
  }
  const importMs = performance.now() - importStarted
  const events = lines.length - 1
  return {
    samples: [exportMs],
    counts: {
      events,
      exportPerSecond: Math.round(events / (exportMs / 1000)),
      importPerSecond: Math.round(events / (importMs / 1000)),
      importMs: Math.round(importMs),
      megabytes: Math.round(bytes / 1e5) / 10,
      chunks,
      largestChunk: largest,
    },
  }
}

/** What a cold-start sample is: ours or the smallest Worker, and which of its moments. */
export type ColdPart = `${'ours' | 'bare'}:${'ready' | 'first' | 'second' | 'read'}`

/**
 * A new isolate: the real Worker (`wrangler.toml`) started afresh in its own empty state, then
 * its first request (a turn: the session object, the tokenizer's tables and the upstream client
 * all loaded for it) and the same again, warm, or a read as its first request (the user's
 * sessions listed: nothing estimated, so the tokenizer's encoding is never built); or the smallest Worker (`bench/bare-worker.ts`,
 * answering "ok") the same way, the floor under this dev server. The part says which moment is
 * the sample (ready: from the start until the dev server says it is ready).
 */
export async function coldIsolate(worker: BenchWorker, part: ColdPart, round: number): Promise<Measured> {
  const [side, moment] = part.split(':') as ['ours' | 'bare', 'ready' | 'first' | 'second' | 'read']
  const state = `.bench/state-cold-${RUN}-${side}-${moment}-${round}`
  rmSync(state, { recursive: true, force: true })
  const started = performance.now()
  const fresh = await unstable_startWorker({
    config: side === 'ours' ? 'wrangler.toml' : 'bench/wrangler.bare.toml',
    bindings: side === 'ours' ? benchBindings(worker.upstreamUrl) : {},
    dev: { server: { port: 0 }, persist: state, inspector: false, logLevel: 'error' },
  })
  await fresh.ready
  const ready = performance.now() - started
  const request = async (i: number) => {
    const began = performance.now()
    const response = await fresh.fetch(`http://cold/v1/sessions/cold-${i}/turns`, {
      method: 'POST',
      headers: { Authorization: worker.authorization, 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: `the first turn ${i} of a new isolate` }),
    })
    if (!response.ok) throw new Error(`cold turn: ${response.status} ${await response.text()}`)
    await response.text()
    return performance.now() - began
  }
  const read = async () => {
    const began = performance.now()
    const response = await fresh.fetch('http://cold/v1/sessions', { headers: { Authorization: worker.authorization } })
    if (!response.ok) throw new Error(`cold read: ${response.status} ${await response.text()}`)
    await response.text()
    return performance.now() - began
  }
  const sample = moment === 'read' ? await read() : { ready, first: await request(1), second: await request(2) }[moment]
  await fresh.dispose()
  rmSync(state, { recursive: true, force: true })
  return { samples: [sample] }
}
