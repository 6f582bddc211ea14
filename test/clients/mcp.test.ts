/**
 * The MCP server (`/mcp`, round4.md §4) through the official SDK's own clients: v1's
 * (`@modelcontextprotocol/sdk`, protocol 2025-11-25) and v2's (`@modelcontextprotocol/client`,
 * pinned to the 2026-07-28 revision that Claude Code probes for first). A session and a memory file are written through
 * the REST API, then listed, read, recalled, summarized and resumed over MCP; another user finds
 * none of it.
 */

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { sign } from 'hono/jwt'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { serveWorker } from '../served/global-setup'
import { folder, removeFolders } from './cli'
import { newSessionId, run } from './helpers'

const origin = () => new URL(inject('apiBase')).origin
const mcpUrl = () => new URL('/mcp', origin())

let users = 0
/** A user of its own, and a token for it. */
async function newUser(): Promise<{ id: string; token: string }> {
  const id = `mcp-${Date.now().toString(36)}-${++users}`
  return { id, token: await sign({ sub: id, exp: Math.floor(Date.now() / 1000) + 3600 }, inject('jwtSecret'), 'HS256') }
}

/** A REST call as `token`, its JSON answer. */
async function rest(token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${inject('apiBase')}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response.status === 204 ? null : response.json()
}

/** The v1 SDK's client, connected as `token`. */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'durable-sessions-tests', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  )
  return client
}

const textOf = (result: any): string => result.content.map((part: { text: string }) => part.text).join('')

/** A session of a few turns about a lighthouse, one of them calling a tool. */
async function seedSession(token: string, id: string) {
  const message = (eventId: string, role: string, content: string | null, extra = {}) => ({
    id: eventId,
    message: { role, content, ...extra },
  })
  await rest(token, 'POST', `/sessions/${id}/events`, {
    events: [
      message('u1', 'user', 'Tell me about the lighthouse keeper on Skerry Island.'),
      message('a1', 'assistant', 'The keeper, Morag, lit the lamp every night for thirty years.'),
      message('u2', 'user', 'Look up the lamp for me.'),
      message('a2', 'assistant', null, { toolCalls: [{ id: 'call_lamp', name: 'lookup', arguments: '{"what":"lamp"}' }] }),
      message('t2', 'tool', null, {
        toolResponses: [{ id: 'call_lamp', name: 'lookup', data: 'A Fresnel lens of the first order, 1894.' }],
      }),
      message('a3', 'assistant', 'It is a first-order Fresnel lens from 1894.'),
      message('u3', 'user', 'And the fog signal?'),
      message('a4', 'assistant', 'A diaphone, sounded twice a minute in fog.'),
    ],
  })
}

describe('the MCP server through the SDK’s own clients', () => {
  let alice: { id: string; token: string }
  let client: Client
  const session = newSessionId('mcp')

  beforeAll(async () => {
    alice = await newUser()
    await seedSession(alice.token, session)
    await rest(alice.token, 'PUT', '/memories/notes/keeper.md', { content: 'Morag kept the light.\n' })
    client = await connect(alice.token)
  })

  it('lists its tools, each with a description and an input schema; the write tools only when the deployment turns them on', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'get_context',
      'list_sessions',
      'memory',
      'read_session',
      'recall',
      'search_sessions',
    ])
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/\w{3,}.*\w{3,}/)
      expect(tool.inputSchema.type).toBe('object')
    }
    expect(tools.find((tool) => tool.name === 'read_session')!.inputSchema.required).toEqual(['sessionId'])
  })

  it('search_sessions finds what was said across the caller’s sessions, asked in plain words, each hit naming its session', async () => {
    // Searchable across sessions once the session hands its events over (documented: within 2 s).
    let hits: any[] = []
    for (let polls = 0; polls < 400 && !hits.some((hit) => hit.sessionId === session); polls++) {
      if (polls > 0) await new Promise((resolve) => setTimeout(resolve, 25))
      const found = await client.callTool({ name: 'search_sessions', arguments: { query: 'Who lit the lamp on Skerry Island?' } })
      expect(found.isError, textOf(found)).toBeFalsy()
      hits = JSON.parse(textOf(found)).hits
    }
    expect(hits.slice(0, 5)).toContainEqual(
      expect.objectContaining({ sessionId: session, eventId: expect.stringMatching(/^(u1|a1)$/), role: expect.any(String) }),
    )
  })

  it('list_sessions names the caller’s session with its size, and finds it by words of its first message', async () => {
    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: { limit: 50 } })))
    expect(listed.sessions).toContainEqual(expect.objectContaining({ id: session, events: 8 }))
    const byWords = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: { q: 'Skerry Island' } })))
    expect(byWords.sessions.map((listed: { id: string }) => listed.id)).toContain(session)
    const byOthers = JSON.parse(textOf(await client.callTool({ name: 'list_sessions', arguments: { q: 'submarine' } })))
    expect(byOthers.sessions).toEqual([])
  })

  it('read_session answers a page of the lineage around an event, in Markdown or JSON, with where to page on', async () => {
    const around = await client.callTool({ name: 'read_session', arguments: { sessionId: session, eventId: 't2', limit: 3 } })
    expect(around.isError).toBeFalsy()
    const markdown = textOf(around)
    expect(markdown).toContain('`lookup` (call_lamp) answered')
    expect(markdown).toContain('A Fresnel lens of the first order, 1894.')
    expect(markdown).toContain('event a2')
    expect(markdown).toContain('event a3')
    expect(markdown).not.toContain('event u2')
    const page = JSON.parse(
      textOf(
        await client.callTool({
          name: 'read_session',
          arguments: { sessionId: session, eventId: 't2', limit: 3, format: 'json' },
        }),
      ),
    )
    expect(page.events.map((entry: any) => entry.event.id)).toEqual(['a2', 't2', 'a3'])
    expect(page.olderFrom).toBe('a2')
    expect(page.newerFrom).toBe('a3')
    const newest = JSON.parse(
      textOf(await client.callTool({ name: 'read_session', arguments: { sessionId: session, limit: 2, format: 'json' } })),
    )
    expect(newest.events.map((entry: any) => entry.event.id)).toEqual(['u3', 'a4'])
    expect(newest.newerFrom).toBeNull()
  })

  it('recall finds by a query, and by a tool call’s id the result whole', async () => {
    const byQuery = JSON.parse(
      textOf(await client.callTool({ name: 'recall', arguments: { sessionId: session, query: 'fog signal' } })),
    )
    expect(byQuery.hits.map((hit: any) => hit.eventId)).toContain('u3')
    const byId = JSON.parse(textOf(await client.callTool({ name: 'recall', arguments: { sessionId: session, id: 'call_lamp' } })))
    expect(byId.hits).toEqual([
      expect.objectContaining({
        id: 't2',
        role: 'tool',
        text: expect.stringContaining('A Fresnel lens of the first order, 1894.'),
      }),
    ])
  })

  it('get_context says what the session holds; memory runs the memory tool’s commands on the caller’s files', async () => {
    const context = JSON.parse(textOf(await client.callTool({ name: 'get_context', arguments: { sessionId: session } })))
    expect(context.events).toEqual({ log: 8, view: 8, covered: 0 })
    expect(context.pendingToolCalls).toEqual([])
    const viewed = await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/notes/keeper.md' } })
    expect(textOf(viewed)).toContain('Morag kept the light.')
    const refused = await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/none.md' } })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^Error: /)
  })

  it('a tool the service refuses is an isError result with its message; an unknown tool is a protocol error', async () => {
    const missing = await client.callTool({ name: 'read_session', arguments: { sessionId: 'no-such-session' } })
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toBe('404: session not found')
    const both = await client.callTool({ name: 'recall', arguments: { sessionId: session, query: 'lamp', id: 'u1' } })
    expect(both.isError).toBe(true)
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/no_such_tool/)
  })

  it('the transcript and summary resources, and the resume_session prompt', async () => {
    const transcript = await client.readResource({ uri: `session://${session}/transcript.md` })
    expect(transcript.contents[0]).toMatchObject({ mimeType: 'text/markdown' })
    expect((transcript.contents[0] as { text: string }).text).toContain('Morag, lit the lamp every night')
    expect((await client.readResource({ uri: `session://${session}/summary` })).contents).toEqual([])
    const resumed = await client.getPrompt({ name: 'resume_session', arguments: { sessionId: session, turns: '1' } })
    const said = (resumed.messages[0]!.content as { text: string }).text
    expect(said).toContain('user: And the fog signal?')
    expect(said).toContain('assistant: A diaphone, sounded twice a minute in fog.')
    expect(said).not.toContain('Skerry Island')
  })

  it('once compacted, the summary resource holds the summary and resume_session starts from it', async () => {
    const compacted = newSessionId('mcp')
    await seedSession(alice.token, compacted)
    await rest(alice.token, 'POST', `/sessions/${compacted}/compact`, { strategy: { window: { lastEvents: 2 }, summarizer: {} } })
    const summary = await client.readResource({ uri: `session://${compacted}/summary` })
    expect(summary.contents).toHaveLength(1)
    const summaryText = (summary.contents[0] as { text: string }).text
    expect(summaryText.length).toBeGreaterThan(0)
    const resumed = await client.getPrompt({ name: 'resume_session', arguments: { sessionId: compacted } })
    expect((resumed.messages[0]!.content as { text: string }).text).toContain(
      `Summary of the conversation so far:\n\n${summaryText}`,
    )
    // The covered messages are marked covered on the page that shows them.
    const page = JSON.parse(
      textOf(
        await client.callTool({
          name: 'read_session',
          arguments: { sessionId: compacted, eventId: 'u1', position: 'around', limit: 1, format: 'json' },
        }),
      ),
    )
    expect(page.events).toEqual([expect.objectContaining({ covered: true, cleared: null })])
  })

  it('another user lists, reads and recalls none of it', async () => {
    const mallory = await newUser()
    const other = await connect(mallory.token)
    const listed = JSON.parse(textOf(await other.callTool({ name: 'list_sessions', arguments: {} })))
    expect(listed.sessions).toEqual([])
    const searched = JSON.parse(
      textOf(await other.callTool({ name: 'search_sessions', arguments: { query: 'lighthouse keeper Morag' } })),
    )
    expect(searched.hits).toEqual([])
    for (const [name, args] of [
      ['read_session', { sessionId: session }],
      ['recall', { sessionId: session, id: 'call_lamp' }],
      ['recall', { sessionId: session, query: 'lighthouse' }],
      ['get_context', { sessionId: session }],
    ] as const) {
      const answer = await other.callTool({ name, arguments: args })
      expect(answer.isError, name).toBe(true)
      expect(textOf(answer)).toMatch(/^404: /)
    }
    expect(textOf(await other.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories' } }))).not.toContain(
      'keeper',
    )
    await expect(other.readResource({ uri: `session://${session}/transcript.md` })).rejects.toThrow(/not found/i)
    await other.close()
  })

  it('v2’s client pinned to the 2026-07-28 revision (Claude Code probes for it with server/discover) is served it, statelessly', async () => {
    const modern = new ModernClient(
      { name: 'durable-sessions-tests', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    await modern.connect(new ModernTransport(mcpUrl(), { requestInit: { headers: { Authorization: `Bearer ${alice.token}` } } }))
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const listed = await modern.callTool({ name: 'list_sessions', arguments: {} })
    expect(JSON.parse(textOf(listed)).sessions.map((s: { id: string }) => s.id)).toContain(session)
    await modern.close()
  })

  it('v1’s client (a 2025-era revision, as Claude Code’s SDK speaks it) is answered in JSON, not an SSE stream for one message; its GET for a stream is a 405', async () => {
    const answers: { method: string; status: number; type: string | null }[] = []
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      answers.push({ method: init?.method ?? 'GET', status: response.status, type: response.headers.get('Content-Type') })
      return response
    }
    const v1 = new Client({ name: 'durable-sessions-tests', version: '1.0.0' })
    await v1.connect(
      new StreamableHTTPClientTransport(mcpUrl(), {
        fetch: recording,
        requestInit: { headers: { Authorization: `Bearer ${alice.token}` } },
      }),
    )
    expect(v1.getServerVersion()?.name).toBe('durable-sessions')
    const listed = await v1.callTool({ name: 'list_sessions', arguments: {} })
    expect(JSON.parse(textOf(listed)).sessions.map((s: { id: string }) => s.id)).toContain(session)
    await v1.close()
    const answered = answers.filter((answer) => answer.method === 'POST' && answer.status === 200)
    expect(answered.length).toBe(2) // initialize, tools/call (the initialized notification is a 202)
    for (const answer of answered) expect(answer.type).toMatch(/^application\/json/)
    // The client asks for a stream of the server's own messages once initialized: a stateless server has none.
    expect(answers.filter((answer) => answer.method === 'GET').map((answer) => answer.status)).toEqual([405])
  })

  it('without a token: 401 naming the protected-resource metadata, which names the resource', async () => {
    const response = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{}',
    })
    expect(response.status).toBe(401)
    const challenge = response.headers.get('WWW-Authenticate')!
    expect(challenge).toMatch(/^Bearer /)
    expect(challenge).toContain(`resource_metadata="${origin()}/.well-known/oauth-protected-resource"`)
    const metadata = await (await fetch(`${origin()}/.well-known/oauth-protected-resource`)).json()
    expect(metadata).toMatchObject({ resource: `${origin()}/mcp`, bearer_methods_supported: ['header'] })
  })
})

describe('the MCP server’s write tools, with MCP_WRITE_TOOLS=1', () => {
  let worker: Awaited<ReturnType<typeof serveWorker>>
  let client: Client
  let token: string
  const session = newSessionId('mcp-write')

  beforeAll(async () => {
    worker = await serveWorker({ MCP_WRITE_TOOLS: '1', OPENAI_BASE_URL: `${inject('upstreamUrl')}/v1`, SUMMARY_MODEL: 'echo' })
    token = (await newUser()).token
    const response = await fetch(new URL(`/v1/sessions/${session}/events`, worker.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        events: ['one', 'two', 'three', 'four'].map((word, i) => ({
          id: `m${i + 1}`,
          message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `Message ${word}.` },
        })),
      }),
    })
    expect(response.status).toBe(201)
    client = new Client({ name: 'durable-sessions-tests', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', worker.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    )
  })
  afterAll(async () => {
    await client?.close()
    await worker?.stop()
  })

  it('offers pin_events, compact_session and fork_session beside the read tools, each doing what its route does', async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['pin_events', 'compact_session', 'fork_session', 'read_session']))
    const pinned = JSON.parse(
      textOf(await client.callTool({ name: 'pin_events', arguments: { sessionId: session, pin: ['m1'] } })),
    )
    expect(pinned.pinned).toEqual(['m1'])
    const forked = JSON.parse(
      textOf(await client.callTool({ name: 'fork_session', arguments: { sessionId: session, at: 'm2' } })),
    )
    expect(forked.forkedFrom).toMatchObject({ sessionId: session, eventId: 'm2' })
    expect(forked.stats.events).toBeGreaterThanOrEqual(2)
    const compacted = JSON.parse(textOf(await client.callTool({ name: 'compact_session', arguments: { sessionId: session } })))
    // Four messages, the default window twenty: nothing to cover, and the pass says so.
    expect(compacted).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
    const refused = await client.callTool({ name: 'pin_events', arguments: { sessionId: session, pin: ['no-such-event'] } })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/^400: .*no-such-event/)
  })
})

describe('the MCP inspector’s CLI against the served Worker', () => {
  const INSPECTOR = resolve('test/cli/node_modules/.bin/mcp-inspector')
  const why = existsSync(INSPECTOR) ? '' : 'the MCP inspector CLI is not installed: run `npm ci --prefix test/cli`'
  if (why) console.warn(`skipped: ${why}`)
  afterAll(removeFolders)

  /** Runs the inspector's CLI against /mcp as `token`: its JSON output. */
  async function inspector(token: string, ...args: string[]): Promise<any> {
    const { code, stdout, stderr } = await run(
      INSPECTOR,
      ['--cli', mcpUrl().href, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args],
      // A home of its own: the inspector keeps a catalog of servers there.
      { cwd: process.cwd(), env: { PATH: process.env.PATH, HOME: folder('mcp-inspector-') } },
    )
    expect(code, `${stdout}\n${stderr}`).toBe(0)
    return JSON.parse(stdout)
  }

  it.skipIf(why)('lists the tools and calls one, the answer the service’s', async () => {
    const user = await newUser()
    const session = newSessionId('mcp-inspector')
    await seedSession(user.token, session)
    const { tools } = await inspector(user.token, '--method', 'tools/list')
    expect(tools.map((tool: { name: string }) => tool.name)).toContain('read_session')
    const called = await inspector(
      user.token,
      '--method',
      'tools/call',
      '--tool-name',
      'recall',
      '--tool-arg',
      `sessionId=${session}`,
      'id=call_lamp',
    )
    expect(JSON.parse(called.content[0].text).hits[0]).toMatchObject({ id: 't2', role: 'tool' })
  })
})
