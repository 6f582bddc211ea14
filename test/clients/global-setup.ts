import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sign } from 'hono/jwt'
import type { TestProject } from 'vitest/node'
import { unstable_startWorker } from 'wrangler'
import { startFakeOpenAI } from '../upstream/fake-openai'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Worker's base URL, as a client is given it (`…/v1`). */
    apiBase: string
    /** A bearer token for user `alice`, the clients' API key. */
    apiKey: string
    upstreamUrl: string
  }
}

const SECRET = 'clients-test-secret'

/**
 * The real Worker in local workerd (wrangler's dev server, with `wrangler.toml`), offline, on a
 * free port, with the fake OpenAI-compatible upstream as its model: what the real client
 * libraries are pointed at, as a user would point them at a deployment.
 */
export default async function setup(project: TestProject) {
  const upstream = await startFakeOpenAI()
  const state = mkdtempSync(join(tmpdir(), 'durable-sessions-clients-'))
  const worker = await unstable_startWorker({
    config: 'wrangler.toml',
    bindings: {
      JWT_SECRET: { type: 'plain_text', value: SECRET },
      OPENAI_BASE_URL: { type: 'plain_text', value: `${upstream.url}/v1` },
      CHAT_MODEL: { type: 'plain_text', value: 'echo' },
      SUMMARY_MODEL: { type: 'plain_text', value: 'echo' },
    },
    dev: { server: { hostname: '127.0.0.1', port: 0 }, persist: state, inspector: false, logLevel: 'error' },
  })
  await worker.ready
  const url = await worker.url
  project.provide('apiBase', new URL('/v1', url).href)
  project.provide('apiKey', await sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256'))
  project.provide('upstreamUrl', upstream.url)
  return async () => {
    await worker.dispose()
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()))
    rmSync(state, { recursive: true, force: true })
  }
}
