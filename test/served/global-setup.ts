import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sign } from 'hono/jwt'
import type { TestProject } from 'vitest/node'
import { unstable_startWorker } from 'wrangler'
import { startFakeAnthropic } from '../upstream/fake-anthropic'
import { startFakeOpenAI } from '../upstream/fake-openai'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Worker's base URL, as a client is given it (`…/v1`). */
    apiBase: string
    /** A bearer token for user `alice`, the clients' API key. */
    apiKey: string
    upstreamUrl: string
    /** The fake Anthropic upstream's base URL (without /v1, as ANTHROPIC_BASE_URL takes it). */
    anthropicUrl: string
    /** The HS256 secret the Worker verifies tokens with (tests sign their own users' tokens). */
    jwtSecret: string
  }
}

const SECRET = 'clients-test-secret'

/**
 * The real Worker in local workerd (wrangler's dev server, with `wrangler.toml`), offline, on a
 * free port, its state in a temporary folder; with these variables (a model, or none).
 */
export async function serveWorker(vars: Record<string, string>) {
  const state = mkdtempSync(join(tmpdir(), 'durable-sessions-served-'))
  const worker = await unstable_startWorker({
    config: 'wrangler.toml',
    bindings: Object.fromEntries(
      Object.entries({ JWT_SECRET: SECRET, ...vars }).map(([name, value]) => [name, { type: 'plain_text' as const, value }]),
    ),
    dev: { server: { hostname: '127.0.0.1', port: 0 }, persist: state, inspector: false, logLevel: 'error' },
  })
  await worker.ready
  return {
    url: await worker.url,
    async stop() {
      await worker.dispose()
      rmSync(state, { recursive: true, force: true })
    },
  }
}

/**
 * For the clients and browser projects: the served Worker with the fake OpenAI-compatible
 * upstream as its model (and the fake Anthropic one for models named claude…): what the real
 * client libraries and the browser are pointed at, as a user would point them at a deployment.
 */
export default async function setup(project: TestProject) {
  const upstream = await startFakeOpenAI()
  const anthropic = await startFakeAnthropic()
  const worker = await serveWorker({
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ANTHROPIC_BASE_URL: anthropic.url,
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    CHAT_MODEL: 'echo',
    SUMMARY_MODEL: 'echo',
    // One user stands for every client suite here (a thousand requests a minute, hundreds of
    // turns): per-user limits are the limits project's to test.
    RATE_LIMIT_REQUESTS: '0',
    RATE_LIMIT_TURNS: '0',
    // The agent loops' models (test/clients/agent-loops.test.ts): the 32k window the issue proves them in.
    MODEL_CONTEXT_TOKENS: JSON.stringify({
      'loop-300#ai-sdk': 32768,
      'loop-300#anthropic-sdk': 32768,
      'loop-300#agents-sdk': 32768,
    }),
  })
  project.provide('apiBase', new URL('/v1', worker.url).href)
  project.provide('apiKey', await sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256'))
  project.provide('upstreamUrl', upstream.url)
  project.provide('anthropicUrl', anthropic.url)
  project.provide('jwtSecret', SECRET)
  return async () => {
    await worker.stop()
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()))
    await new Promise<void>((resolve) => anthropic.server.close(() => resolve()))
  }
}
