/**
 * The bench Worker (bench/entry.ts) started in local workerd through wrangler's dev server,
 * offline, with the tests' fake OpenAI-compatible upstream as its model, and the calls made to it.
 */
import { sign } from 'hono/jwt'
import { unstable_startWorker } from 'wrangler'
import { startFakeOpenAI } from '../../test/upstream/fake-openai'
import type { Measured } from '../shared'
import { LOOP_CONTEXT_TOKENS } from './agent-loops'
import { SECRET, USER } from './config'

export type Params = Record<string, string | number>

export interface BenchWorker {
  /** A JSON call to the service, its answer parsed; anything but a 2xx throws. */
  api(method: string, path: string, body?: unknown): Promise<any>
  /** A bench-only route (bench/entry.ts): a POST when it takes a body. */
  bench(route: string, params: Params, body?: unknown): Promise<Measured>
  /** The dev server's URL, for requests that read the stream themselves. */
  url: string
  upstreamUrl: string
  /** When (`performance.now()` here) the fake upstream last had a request's head. */
  upstreamHeard(): number
  /** The Authorization header of the bench user. */
  authorization: string
  /** A JSON call to the service as another user. */
  as(user: string): Promise<(method: string, path: string, body?: unknown) => Promise<any>>
  close(): Promise<void>
}

export const benchBindings = (upstreamUrl: string) => {
  const plain = (value: string) => ({ type: 'plain_text' as const, value })
  return {
    JWT_SECRET: plain(SECRET),
    OPENAI_BASE_URL: plain(`${upstreamUrl}/v1`),
    CHAT_MODEL: plain('echo'),
    SUMMARY_MODEL: plain('echo'),
    // Room for the ~10k-token views the sessions keep: a turn's prompt fits, so no pass runs to make room.
    CHAT_CONTEXT_TOKENS: plain('131072'),
    // The agent loops' models (./agent-loops.ts): the 32k window the issue proves them in.
    MODEL_CONTEXT_TOKENS: plain(JSON.stringify(LOOP_CONTEXT_TOKENS)),
    // One user seeds and measures far more than 600 requests a minute: the limits are off here
    // (what they cost per request: docs/http-api.md, "Rate limits").
    RATE_LIMIT_REQUESTS: plain('0'),
    RATE_LIMIT_TURNS: plain('0'),
    MAX_QUEUED_TURNS: plain('0'),
  }
}

/** Starts the fake upstream and the bench Worker, its state kept in `.bench/state` (or `persist`). */
export async function startBenchWorker(persist = '.bench/state', vars: Record<string, string> = {}): Promise<BenchWorker> {
  const upstream = await startFakeOpenAI()
  let heard = Number.NaN
  upstream.server.prependListener('request', () => {
    heard = performance.now()
  })
  const worker = await unstable_startWorker({
    config: 'bench/wrangler.bench.toml',
    bindings: {
      ...benchBindings(upstream.url),
      ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: 'plain_text' as const, value }])),
    },
    dev: { server: { port: 0 }, persist, inspector: false, logLevel: 'error' },
  })
  await worker.ready
  const authorizationOf = async (user: string) =>
    `Bearer ${await sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 24 * 3600 }, SECRET, 'HS256')}`
  const authorization = await authorizationOf(USER)
  const apiOf = (authorization: string) => async (method: string, path: string, body?: unknown) => {
    const json = body === undefined ? {} : { 'Content-Type': 'application/json' }
    const init = {
      method,
      headers: { Authorization: authorization, ...json },
      body: body === undefined ? undefined : JSON.stringify(body),
    }
    const response = await worker.fetch(`http://bench${path}`, init)
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`)
    return text === '' ? null : JSON.parse(text)
  }
  const api = apiOf(authorization)
  return {
    api,
    bench: (route, params, body) => {
      const query = new URLSearchParams(Object.entries(params).map(([name, value]) => [name, String(value)]))
      return api(body === undefined ? 'GET' : 'POST', `/bench/${route}?${query}`, body)
    },
    url: new URL('/', await worker.url).href,
    upstreamUrl: upstream.url,
    upstreamHeard: () => heard,
    authorization,
    as: async (user) => apiOf(await authorizationOf(user)),
    async close() {
      await worker.dispose()
      upstream.server.close()
    },
  }
}
