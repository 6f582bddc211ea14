/**
 * At least once, across a crash: the real Worker under `wrangler dev` with its state on disk is
 * killed (SIGKILL, its whole process group: wrangler and workerd) while a webhook delivery waits
 * for a receiver that fails, and started again on the same state; the delivery then arrives,
 * and the turn's usage is counted once.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sign } from 'hono/jwt'
import { afterAll, expect, it } from 'vitest'
import { startFakeOpenAI } from '../upstream/fake-openai'

const SECRET = 'kill-test-secret'

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Polls `condition` every 250 ms until it holds; fails after `seconds`. */
async function until(condition: () => Promise<boolean>, what: string, seconds = 60) {
  for (let waited = 0; !(await condition().catch(() => false)); waited += 0.25) {
    if (waited > seconds) throw new Error(`still waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/** A receiver that answers 503 until it is told to accept, recording every attempt. */
function startReceiver() {
  const attempts: { id: string; type: string; answered: number }[] = []
  const state = { accepting: false }
  const server = createHttpServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    const answered = state.accepting ? 200 : 503
    attempts.push({ id: String(req.headers['webhook-id']), type: JSON.parse(body).type, answered })
    res.writeHead(answered).end()
  })
  return new Promise<{ url: string; attempts: typeof attempts; state: typeof state; close: () => void }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      resolve({ url: `http://127.0.0.1:${port}/hook`, attempts, state, close: () => server.close() })
    }),
  )
}

const state = mkdtempSync(join(tmpdir(), 'durable-sessions-kill-'))
const servers: ChildProcess[] = []
const killGroup = (server: ChildProcess) => {
  try {
    process.kill(-server.pid!, 'SIGKILL')
  } catch {} // gone already
}
afterAll(() => {
  for (const server of servers) killGroup(server)
  rmSync(state, { recursive: true, force: true })
})

/** `wrangler dev` on the persisted state; answers its base URL once it serves. */
async function serve(upstreamUrl: string): Promise<{ base: string; server: ChildProcess }> {
  const port = String(await freePort())
  const args = ['wrangler', 'dev', '--port', port, '--ip', '127.0.0.1', '--persist-to', state]
  for (const variable of [
    `JWT_SECRET:${SECRET}`,
    `OPENAI_BASE_URL:${upstreamUrl}/v1`,
    'CHAT_MODEL:echo',
    'RATE_LIMIT_REQUESTS:0',
  ])
    args.push('--var', variable)
  const server = spawn('npx', args, {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
  })
  servers.push(server)
  const base = `http://127.0.0.1:${port}`
  await until(async () => (await fetch(`${base}/v1/openapi.json`)).ok, 'wrangler dev to serve', 120)
  return { base, server }
}

it('delivers a webhook that was pending when the server was killed, once it runs again; the usage counted once', async () => {
  const upstream = await startFakeOpenAI()
  const receiver = await startReceiver()
  const token = await sign({ sub: 'killed', exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET, 'HS256')
  const call = async (base: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    return { status: response.status, body: (await response.json()) as any }
  }
  try {
    const first = await serve(upstream.url)
    const hook = await call(first.base, 'POST', '/v1/webhooks', { url: receiver.url, events: ['turn.completed'] })
    expect(hook.status).toBe(201)
    const answered = await call(first.base, 'POST', '/v1/sessions/crash/turns', { content: 'before the crash' })
    expect(answered.status).toBe(200)
    await until(async () => receiver.attempts.length > 0, 'the first attempt')
    killGroup(first.server)
    receiver.state.accepting = true

    const second = await serve(upstream.url)
    await until(async () => receiver.attempts.some((attempt) => attempt.answered === 200), 'the delivery after the restart')
    const ids = new Set(receiver.attempts.map((attempt) => attempt.id))
    expect(ids.size).toBe(1) // every attempt is the one delivery
    expect(receiver.attempts.map((attempt) => attempt.type)).toEqual(receiver.attempts.map(() => 'turn.completed'))
    const deliveries = await call(second.base, 'GET', `/v1/webhooks/${hook.body.id}/deliveries`)
    expect(deliveries.body.deliveries).toEqual([expect.objectContaining({ status: 'delivered', lastStatus: 200 })])
    const usage = await call(second.base, 'GET', '/v1/usage')
    expect(usage.body.usage).toEqual([expect.objectContaining({ model: 'echo', turns: 1 })])
  } finally {
    receiver.close()
    upstream.server.close()
  }
})
