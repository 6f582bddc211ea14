import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { claude, cliMissing, codexUser, folder, removeFolders, serveForCli, tokenOf } from './cli'

/**
 * The service's MCP server (`/mcp`) through the agent CLIs themselves, each also talking to the
 * service as its model provider: the (fake) model calls an MCP tool, the CLI calls the served
 * Worker's /mcp, and the tool's result goes back to the model. Codex offers an MCP server's tools
 * as one `namespace` tool (`mcp__ds`), which the Responses door offers upstream by flat names;
 * Claude Code defers them behind its ToolSearch tool, naming them in its prompt, and the model
 * calls one by its name (`mcp__ds__<tool>`).
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

/** What the fake upstream was sent for a tag. */
const upstreamSent = async (tag: string): Promise<{ body: { messages: any[]; tools?: any[] } }[]> =>
  (await fetch(`${inject('upstreamUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never

/** A session of the user's written through the REST API, for the MCP tool to find. */
async function seed(token: string, id: string): Promise<void> {
  const response = await fetch(new URL(`/v1/sessions/${id}/events`, worker.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ events: [{ message: { role: 'user', content: 'The lighthouse keeper is Morag.' } }] }),
  })
  expect(response.status, await response.text()).toBe(201)
  // Searchable across sessions once the session hands its events over (documented: within 2 s).
  const searched = async () => {
    const found = await fetch(new URL('/v1/search?q=lighthouse%20keeper', worker.url), {
      headers: { Authorization: `Bearer ${token}` },
    })
    return ((await found.json()) as { hits: { sessionId: string }[] }).hits.some((hit) => hit.sessionId === id)
  }
  for (let polls = 0; !(await searched()); polls++) {
    if (polls === 400) throw new Error(`${id} never became searchable across sessions`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The log's messages in short: a call by its tool's name, a result by its text. */
const said = (log: any[]) =>
  log
    .filter((event) => event.type === 'MESSAGE' && event.message.role !== 'system' && !event.synthetic)
    .map(({ message: m }) => {
      if (m.toolCalls) return `${m.role}:calls ${m.toolCalls.map((call: any) => call.name).join(',')}`
      if (m.toolResponses) return `${m.role}:result`
      return `${m.role}:${m.content.startsWith('<environment_context>') ? '<environment_context>' : m.content}`
    })

describe.skipIf(why)('the MCP server through the agent CLIs', () => {
  it('Codex: the model calls search_sessions in the mcp__ds namespace; the result reaches it; `exec resume` resends the call and nothing diverges', async () => {
    const codex = await codexUser(worker.url, { mcp: true })
    const seeded = `mcp-seed-${Date.now().toString(36)}`
    await seed(codex.token, seeded)
    const tag = `cxmcp${Date.now().toString(36)}`
    const out = await codex.exec(['-m', `mcpcall-search_sessions#${tag}`, 'Who is the lighthouse keeper?'])
    expect(out).toMatch(/MCP result: /)
    // The MCP server is offered upstream by its flat name, the other namespace Codex sends (sub-agents) too.
    const [first, second] = await upstreamSent(tag)
    const names = first!.body.tools!.map((tool: any) => tool.function.name)
    expect(names).toContain('mcp__ds__search_sessions')
    expect(names).toContain('exec_command')
    // The call reached the service: its answer names the seeded session, and the model was given it.
    const result = second!.body.messages.at(-1)
    expect(result.role).toBe('tool')
    expect(JSON.stringify(result.content)).toContain(seeded)
    const { sessions } = await codex.api('/sessions')
    const own = sessions.find((session: any) => session.id !== seeded)
    const log = async () => (await codex.api(`/sessions/${own.id}/events?limit=1000`)).events as any[]
    expect(said(await log())).toEqual([
      'user:<environment_context>',
      'user:Who is the lighthouse keeper?',
      'assistant:calls mcp__ds__search_sessions',
      'tool:result',
      expect.stringMatching(/^assistant:MCP result: .*mcp-seed-/s),
    ])
    // Codex resends the call in its namespace with the whole history: it matches what was stored.
    expect(await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'Thanks'])).toMatch(/Echo: Thanks/)
    const after = await log()
    expect(said(after).slice(2)).toEqual([
      'assistant:calls mcp__ds__search_sessions',
      'tool:result',
      expect.stringMatching(/^assistant:MCP result: /),
      'user:Thanks',
      'assistant:Echo: Thanks',
    ])
    expect(after.filter((event) => event.type === 'REWIND')).toEqual([])
  })

  it('Claude Code: the model calls mcp__ds__search_sessions through the Messages door; the result reaches it', async () => {
    const user = `claude-mcp-${Date.now().toString(36)}`
    const token = await tokenOf(user)
    const seeded = `mcp-seed-${Date.now().toString(36)}`
    await seed(token, seeded)
    const tag = `ccmcp${Date.now().toString(36)}`
    const mcp = {
      mcpServers: { ds: { type: 'http', url: `${new URL('/mcp', worker.url)}`, headers: { Authorization: `Bearer ${token}` } } },
    }
    const answer = await claude(
      [
        'Who is the lighthouse keeper?',
        '--model',
        `mcpcall-search_sessions#${tag}`,
        '--mcp-config',
        JSON.stringify(mcp),
        '--allowedTools',
        'mcp__ds__search_sessions',
      ],
      { service: worker.url, token, home: folder('claude-home-'), cwd: folder('claude-work-') },
    )
    expect(answer.is_error, JSON.stringify(answer)).toBe(false)
    expect(answer.result).toMatch(/^MCP result: .*mcp-seed-/s)
    const [, second] = await upstreamSent(tag)
    const result = second!.body.messages.at(-1)
    expect(result.role).toBe('tool')
    expect(JSON.stringify(result.content)).toContain(seeded)
    // Its session holds the call by the name Claude Code gave it, and the result.
    const get = async (path: string) =>
      (await fetch(new URL(`/v1${path}`, worker.url), { headers: { Authorization: `Bearer ${token}` } })).json() as any
    const own = (await get('/sessions')).sessions.find((session: any) => session.id !== seeded)
    const stored = said((await get(`/sessions/${own.id}/events?limit=1000`)).events)
    expect(stored.slice(-3)).toEqual([
      'assistant:calls mcp__ds__search_sessions',
      'tool:result',
      expect.stringMatching(/^assistant:MCP result: /),
    ])
  })
})
