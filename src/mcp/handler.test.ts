import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/server'
import { describe, expect, it, vi } from 'vitest'
import { mcpFetch } from './handler'

const AUTH = { token: '', clientId: 'alice', scopes: [] }
const URL_ = new URL('https://sessions.test/mcp')

/** The v1 SDK's client (a 2025-era revision) over `serve`, with each answer's status, type and text recorded. */
function clientOver(serve: ReturnType<typeof mcpFetch>) {
  const answers: { status: number; type: string | null; text: string }[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await serve(new Request(input, init), AUTH)
    const text = await response.clone().text()
    answers.push({ status: response.status, type: response.headers.get('Content-Type'), text })
    return response
  }
  const client = new Client({ name: 'handler-tests', version: '1.0.0' })
  return { client, answers, transport: new StreamableHTTPClientTransport(URL_, { fetch }) }
}

describe('mcpFetch', () => {
  it('answers a 2025-era client’s tool call in JSON, from a fresh server each request', async () => {
    let made = 0
    const serve = mcpFetch(() => {
      made++
      const server = new McpServer({ name: 'one-tool', version: '1.0.0' })
      server.registerTool('ping', { description: 'Answers pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }))
      return server
    })
    const { client, answers, transport } = clientOver(serve)
    await client.connect(transport)
    const result = await client.callTool({ name: 'ping', arguments: {} })
    expect(result.content).toEqual([{ type: 'text', text: 'pong' }])
    await client.close()
    const answered = answers.filter((answer) => answer.status === 200)
    expect(answered.map((answer) => answer.type?.split(';')[0])).toEqual(['application/json', 'application/json'])
    expect(made).toBeGreaterThanOrEqual(2) // initialize, then the call: a server each
  })

  it('a server that fails to be made is a JSON-RPC error echoing the request’s id (500), logged, not a thrown error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const serve = mcpFetch(() => {
      throw new Error('no server today')
    })
    const { client, answers, transport } = clientOver(serve)
    await expect(client.connect(transport)).rejects.toThrow(/Internal server error/)
    expect(answers).toHaveLength(1)
    expect(answers[0]!.status).toBe(500)
    const answer = JSON.parse(answers[0]!.text)
    expect(answer).toMatchObject({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' } })
    expect(answer.id).toEqual(expect.any(Number)) // the initialize request's own id
    expect(logged.mock.calls.flat().join(' ')).toContain('no server today')
    logged.mockRestore()
  })

  it('a streamed body over the SDK’s 4 MiB bound, its length not given, is the SDK’s own 413 on either revision', async () => {
    const serve = mcpFetch(() => new McpServer({ name: 'none', version: '1.0.0' }))
    for (const version of ['2025-06-18', '2026-07-28']) {
      const chunk = new TextEncoder().encode(' '.repeat(1024 * 1024))
      let sent = 0
      const body = new ReadableStream({
        pull(controller) {
          if (sent++ < 5) controller.enqueue(chunk)
          else controller.close()
        },
      })
      const response = await serve(
        new Request(URL_, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'MCP-Protocol-Version': version,
          },
          body,
          duplex: 'half',
        } as RequestInit),
        AUTH,
      )
      expect(response.status, version).toBe(413)
      expect(((await response.json()) as { error: { code: unknown } }).error.code, version).toEqual(expect.any(Number))
    }
  })

  it('a POST whose Content-Type is not JSON is the SDK’s own 415, its body not read', async () => {
    const serve = mcpFetch(() => new McpServer({ name: 'none', version: '1.0.0' }))
    let pulled = false
    // No chunk pulled before a reader asks (a queue of 0): a pull means the body was read.
    const body = new ReadableStream(
      {
        pull(controller) {
          pulled = true
          controller.close()
        },
      },
      { highWaterMark: 0 },
    )
    const response = await serve(
      new Request(URL_, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', Accept: 'application/json, text/event-stream' },
        body,
        duplex: 'half',
      } as RequestInit),
      AUTH,
    )
    expect(response.status).toBe(415)
    expect(pulled).toBe(false)
  })
})
