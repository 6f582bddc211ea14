import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { expectNothingLost } from '../support/log-checker'
import { claude, cliMissing, codexUser, folder, removeFolders, serveForCli, tokenOf } from './cli'
import { upstreamSent } from './helpers'
import { expectStoredOnce, PNG, PNG_BASE64 } from './media'

/**
 * Claude Code and Codex retrying after a dropped connection: between each CLI and the served
 * Worker a proxy lets the service answer a request in full, then drops the client's connection
 * before a byte of the answer reaches it — the service has stored the turn, the client saw
 * nothing and sends the request again. The turn must be stored once and the model asked once —
 * also when the history resent holds an image (stored once, and the log whole).
 */
const why = cliMissing
if (why) console.warn(`skipped: ${why}`)

let worker: Awaited<ReturnType<typeof serveWorker>>

beforeAll(async () => {
  if (why) return
  worker = await serveForCli()
}, 180_000)

afterAll(async () => {
  await worker?.stop()
  removeFolders()
})

interface Seen {
  path: string
  headers: IncomingMessage['headers']
  body: string
  dropped: boolean
}

/**
 * A proxy to the Worker that drops the first request to `path` (whose body satisfies `when`, if
 * given) once the service has answered it whole, and passes every other through, streamed; it
 * records what it saw.
 */
async function droppingProxy(path: string, when: (body: string) => boolean = () => true) {
  const seen: Seen[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, String(value))
    const body = Buffer.concat(chunks).toString()
    const drop = req.url!.split('?')[0] === path && !seen.some((s) => s.dropped) && when(body)
    seen.push({ path: req.url!, headers: req.headers, body, dropped: drop })
    const answer = await fetch(new URL(req.url!, worker.url), {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    })
    if (drop) {
      await answer.text() // the whole answer, so the service is done with the request
      req.socket.destroy()
      return
    }
    const passed: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name)) passed[name] = value
    })
    res.writeHead(answer.status, passed)
    const reader = answer.body?.getReader()
    if (reader) for (let piece = await reader.read(); !piece.done; piece = await reader.read()) res.write(piece.value)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, seen, close: () => server.close() }
}

const messagesOf = async (token: string, sessionId: string) => {
  const response = await fetch(new URL(`/v1/sessions/${sessionId}/events?limit=1000`, worker.url), {
    headers: { Authorization: `Bearer ${token}` },
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { events: any[] }).events
}

describe.skipIf(why)('the agent CLIs retrying after a dropped connection', () => {
  it('Claude Code resends the same request (its own retry: x-stainless-retry-count still 0) and is answered the stored reply; the turn is stored once, the model asked once', async () => {
    const proxy = await droppingProxy('/v1/messages')
    try {
      const token = await tokenOf(`claude-retry-${Date.now().toString(36)}`)
      const sessionId = randomUUID()
      const tag = `ccretry${Date.now().toString(36)}`
      const result = await claude(['--session-id', sessionId, '--model', `echo#${tag}`, 'Is this stored once?'], {
        service: proxy.url,
        token,
        home: folder('claude-retry-home-'),
        cwd: folder('claude-retry-work-'),
        retries: 2,
      })
      expect(result.is_error, JSON.stringify(result)).toBe(false)
      expect(result.result).toMatch(/^Echo: /)
      const [dropped, retried, ...rest] = proxy.seen.filter((s) => s.path.startsWith('/v1/messages'))
      expect(dropped!.dropped).toBe(true)
      // Claude Code retries by itself, each attempt a first one to its SDK: the service knows it by its session header.
      expect(retried!.headers['x-stainless-retry-count']).toBe('0')
      expect(retried!.headers['x-claude-code-session-id']).toBe(sessionId)
      expect(rest).toEqual([])
      expect(await upstreamSent(tag)).toHaveLength(1)
      const events = await messagesOf(token, sessionId)
      expect(events.filter((e) => e.message?.role === 'assistant')).toHaveLength(1)
      expect(events.filter((e) => /Is this stored once\?/.test(e.message?.content ?? ''))).toHaveLength(1)
    } finally {
      proxy.close()
    }
  })

  it('Codex resends the same input (its request_max_retries) and is answered the stored reply; the turn is stored once, the model asked once', async () => {
    const proxy = await droppingProxy('/v1/responses')
    try {
      const codex = await codexUser(proxy.url, { retries: 1 })
      const tag = `cxretry${Date.now().toString(36)}`
      expect(await codex.exec(['-m', `echo#${tag}`, 'Stored once, Codex?'])).toMatch(/Echo: Stored once, Codex\?/)
      const requests = proxy.seen.filter((s) => s.path.startsWith('/v1/responses'))
      expect(requests.map((s) => s.dropped)).toEqual([true, false])
      expect(await upstreamSent(tag)).toHaveLength(1)
      const events = await codex.log()
      expect(events.filter((e) => e.message?.role === 'assistant')).toHaveLength(1)
      expect(events.filter((e) => e.message?.content === 'Stored once, Codex?')).toHaveLength(1)
    } finally {
      proxy.close()
    }
  })

  it('Claude Code resending a history that holds an image it read, its answer dropped: answered the stored reply, the image stored once, the question once', async () => {
    const proxy = await droppingProxy('/v1/messages', (body) => body.includes('What does it show?'))
    try {
      const token = await tokenOf(`claude-image-retry-${Date.now().toString(36)}`)
      const options = {
        service: proxy.url,
        token,
        home: folder('claude-image-home-'),
        cwd: folder('claude-image-work-'),
        retries: 2,
      }
      const tag = `ccimgretry${Date.now().toString(36)}`
      const file = join(options.cwd, 'shot.png')
      writeFileSync(file, PNG)
      const sessionId = randomUUID()
      const read = await claude(
        [`Please READ:${file}`, '--session-id', sessionId, '--model', `reader#${tag}`, '--allowedTools', 'Read'],
        options,
      )
      expect(read.result, JSON.stringify(read)).toBe('Read: [image]')
      const asked = await claude(['--resume', sessionId, '--model', `reader#${tag}`, 'What does it show?'], options)
      expect(asked.result, JSON.stringify(asked)).toBe('Echo: What does it show?')
      // The request dropped resent the whole history, the image in its tool_result.
      const [dropped, ...others] = proxy.seen.filter((s) => s.dropped)
      expect(others).toEqual([])
      expect(dropped!.body).toContain(PNG_BASE64)
      // The model was asked for the Read, after it, and the question: once each.
      expect(await upstreamSent(tag)).toHaveLength(3)
      const events = await messagesOf(token, sessionId)
      expectNothingLost(events)
      expect(events.filter((e) => e.message?.role === 'tool')).toHaveLength(1)
      expect(events.filter((e) => e.message?.role === 'user' && e.message.content === 'What does it show?')).toHaveLength(1)
      expect(events.filter((e) => e.message?.content === 'Echo: What does it show?')).toHaveLength(1)
      await expectStoredOnce(sessionId, [PNG], { apiBase: new URL('/v1', worker.url).href, token })
    } finally {
      proxy.close()
    }
  })

  it('Codex resending a history that holds an image its view_image returned, its answer dropped: answered the stored reply, the image stored once, the question once', async () => {
    const proxy = await droppingProxy('/v1/responses', (body) => body.includes('What does it show?'))
    try {
      const codex = await codexUser(proxy.url, { retries: 1 })
      const tag = `cximgretry${Date.now().toString(36)}`
      const file = join(codex.work, 'shot.png')
      writeFileSync(file, PNG)
      expect(await codex.exec(['-m', `viewer#${tag}`, `Please VIEW:${file}`])).toMatch(/Viewed: \[image\]/)
      expect(await codex.exec(['resume', '--last', '-m', `viewer#${tag}`, 'What does it show?'])).toMatch(
        /Echo: What does it show\?/,
      )
      const [dropped, ...others] = proxy.seen.filter((s) => s.dropped)
      expect(others).toEqual([])
      expect(dropped!.body).toContain(PNG_BASE64)
      // The model was asked for the view, after it, and the question: once each.
      expect(await upstreamSent(tag)).toHaveLength(3)
      const events = await codex.log()
      expectNothingLost(events)
      expect(events.filter((e) => e.message?.role === 'tool')).toHaveLength(1)
      expect(events.filter((e) => e.message?.content === 'What does it show?')).toHaveLength(1)
      expect(events.filter((e) => e.message?.content === 'Echo: What does it show?')).toHaveLength(1)
      const { sessions } = await codex.api('/sessions')
      await expectStoredOnce(sessions[0].id, [PNG], { apiBase: new URL('/v1', worker.url).href, token: codex.token })
    } finally {
      proxy.close()
    }
  })
})
