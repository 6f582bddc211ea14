/**
 * `/mcp` fuzzed (round4.md §4) with raw HTTP: malformed JSON-RPC (bad JSON, batches, wrong
 * versions and ids, odd headers), random tool names and arguments for every tool, random resource
 * URIs and prompts. Never a 5xx; a 4xx is a JSON-RPC error; a 200 answers JSON-RPC messages only
 * (a result, or an error with a code and message) for the request's id; a tool the service
 * refuses is an `isError` result saying why; and nothing a read tool or a refused memory command
 * does writes anything (the session's version, the memory store's files and versions).
 */

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { append, assistant, type Call, call, newSessionId, parseSSE, user } from '../helpers'
import { hostileMemoryCommand, KEEPER, looseText, validMemoryCommand } from '../support/memory-commands'

/** A user of this file's own: a memory store is per user. */
const AS = `mcp-fuzz-${Date.now().toString(36)}`
let target: string

beforeAll(async () => {
  target = newSessionId('fuzz-mcp')
  await append(target, [user('Where is the lighthouse?', 'u1'), assistant('On Skerry Island.', 'a1')], AS)
  const written = await call('PUT', `/v1/memories/${KEEPER.path.slice('/memories/'.length)}`, {
    user: AS,
    body: { content: KEEPER.content },
  })
  expect(written.status, written.text).toBe(200)
  // The file's first request loads the Worker: seconds on a 2-core machine (as a test's timeout allows).
}, 30_000)

const junk = fc.jsonValue({ maxDepth: 2 })
const loose = looseText
const sessionId = fc.oneof(
  { weight: 3, arbitrary: fc.constant('TARGET') },
  { weight: 2, arbitrary: fc.constantFrom('no-such-session', '..', '../x', '%2e%2e', 'a/b', ' ', '') },
  { weight: 1, arbitrary: loose },
)
const limit = fc.oneof(fc.integer({ min: -2, max: 60 }), fc.double(), fc.constantFrom('5', null))

const words = fc.oneof(
  fc.constantFrom('lighthouse', 'Skerry Island', '"the light"', 'kept OR light', 'Morag*'),
  fc.string({ minLength: 1, maxLength: 30 }),
)
/** Arguments each tool takes, with values in range: the tool runs. */
const validArguments: Record<string, fc.Arbitrary<unknown>> = {
  search_sessions: fc.record(
    { query: words, mode: fc.constantFrom('auto', 'any', 'all'), limit: fc.integer({ min: 1, max: 20 }) },
    { requiredKeys: ['query'] },
  ),
  list_sessions: fc.record({ q: words, limit: fc.integer({ min: 1, max: 50 }) }, { requiredKeys: [] }),
  read_session: fc.record(
    {
      sessionId: fc.constant('TARGET'),
      eventId: fc.constantFrom('u1', 'a1'),
      position: fc.constantFrom('around', 'before', 'after'),
      limit: fc.integer({ min: 1, max: 50 }),
      format: fc.constantFrom('markdown', 'json'),
    },
    { requiredKeys: ['sessionId'] },
  ),
  recall: fc.oneof(
    fc.record({ sessionId: fc.constant('TARGET'), query: words }),
    fc.record({ sessionId: fc.constant('TARGET'), id: fc.constantFrom('u1', 'a1', 'nope') }),
  ),
  get_context: fc.constant({ sessionId: 'TARGET' }),
  memory: validMemoryCommand,
}
/** Arguments each tool might be called with: its own fields, valid or not, now and then anything. */
const hostileArguments: Record<string, fc.Arbitrary<unknown>> = {
  search_sessions: fc.record(
    { query: loose, mode: fc.oneof(fc.constantFrom('auto', 'any', 'all'), loose), limit },
    { requiredKeys: [] },
  ),
  list_sessions: fc.record({ q: loose, limit, cursor: fc.oneof(loose, fc.constant('eyJ4IjoxfQ')) }, { requiredKeys: [] }),
  read_session: fc.record(
    {
      sessionId,
      eventId: fc.oneof(fc.constantFrom('u1', 'a1', 'nope'), loose),
      position: fc.oneof(fc.constantFrom('around', 'before', 'after'), loose),
      limit,
      format: fc.oneof(fc.constantFrom('markdown', 'json'), loose),
    },
    { requiredKeys: [] },
  ),
  recall: fc.record(
    { sessionId, query: loose, id: fc.oneof(fc.constantFrom('u1', 'a1', 'nope'), loose), limit },
    { requiredKeys: [] },
  ),
  get_context: fc.record({ sessionId }, { requiredKeys: [] }),
  memory: hostileMemoryCommand,
}
const toolCall = fc.oneof(
  ...Object.entries(validArguments).map(([name, args]) => ({
    weight: 2,
    arbitrary: fc.record({ name: fc.constant(name), arguments: args }),
  })),
  ...Object.entries(hostileArguments).map(([name, args]) => fc.record({ name: fc.constant(name), arguments: args })),
  fc.record({
    name: fc.oneof(fc.constantFrom('pin_events', 'compact_session', 'fork_session', 'toString', ''), loose),
    arguments: junk,
  }),
  fc.record({ name: fc.constantFrom('list_sessions', 'memory'), arguments: junk }, { requiredKeys: ['name'] }),
)
const uri = fc.oneof(
  fc.constantFrom(
    'session://TARGET/transcript.md',
    'session://TARGET/summary',
    'session://no-such-session/summary',
    'session://../../etc/summary',
    'session:///summary',
    'session://',
    'session://TARGET/other',
    'https://example.com/',
    'file:///etc/passwd',
  ),
  loose.map((t) => `session://${t}/transcript.md`),
  loose,
)
/** A request the server knows, its params mostly of the right shape. */
const known = fc.oneof(
  fc.record({ method: fc.constant('tools/call'), params: toolCall }),
  fc.record({ method: fc.constant('resources/read'), params: fc.record({ uri }) }),
  fc.record({
    method: fc.constant('prompts/get'),
    params: fc.record({
      name: fc.oneof(fc.constant('resume_session'), loose),
      arguments: fc.oneof(fc.record({ sessionId, turns: fc.oneof(fc.constantFrom('1', '3', '99', '-1', 'x'), loose) }), junk),
    }),
  }),
  fc.record({
    method: fc.constant('initialize'),
    params: fc.record(
      {
        protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01'), loose),
        capabilities: junk,
        clientInfo: fc.oneof(fc.constant({ name: 'fuzz', version: '1' }), junk),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record(
    {
      method: fc.constantFrom(
        'tools/list',
        'resources/list',
        'resources/templates/list',
        'prompts/list',
        'ping',
        'server/discover',
        'completion/complete',
        'logging/setLevel',
        'resources/subscribe',
      ),
      params: junk,
    },
    { requiredKeys: ['method'] },
  ),
  fc.record({ method: loose, params: junk }, { requiredKeys: [] }),
)
/** The JSON-RPC envelope around it: mostly right, else the wrong version, an odd id, no id (a notification). */
const message = fc
  .tuple(
    known,
    fc.oneof({ weight: 12, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0', 2, undefined) }),
    fc.oneof(
      { weight: 10, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
      { weight: 1, arbitrary: fc.constantFrom('req-1', '', null, undefined, 1.5, { id: 1 }, -1) },
    ),
  )
  .map(([request, jsonrpc, id]) => ({ jsonrpc, ...(id === undefined ? {} : { id }), ...request }))
/** A body: one message, a batch, or something that is no JSON-RPC at all. */
const body = fc.oneof(
  { weight: 10, arbitrary: message.map((m) => JSON.stringify(m).replaceAll('TARGET', target)) },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('', '{', 'null', '"x"', '[]', '[1]', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1}'),
      junk.map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 40 }),
    ),
  },
)
/** Mostly the headers a client sends, now and then odd ones. */
const headers = fc.oneof(
  { weight: 5, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        'MCP-Protocol-Version': fc.oneof(
          fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01'),
          fc.string({ maxLength: 12 }),
        ),
        Accept: fc.constantFrom(
          'application/json, text/event-stream',
          'application/json',
          'text/event-stream',
          '*/*',
          'text/html',
        ),
        'Content-Type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'),
        'Mcp-Session-Id': fc.string({ maxLength: 20 }),
      },
      { requiredKeys: [] },
    ),
  },
)

/** A JSON-RPC error: a code and a message. */
const expectRpcError = (error: unknown, what: string) => {
  expect(error, what).toMatchObject({ code: expect.any(Number), message: expect.any(String) })
}

/** The JSON-RPC messages an answer holds: its JSON, or its server-sent events' data. */
function answered(result: Call): unknown[] {
  const type = result.headers.get('Content-Type') ?? ''
  if (type.startsWith('text/event-stream')) return parseSSE(result.text).map((frame) => frame.data)
  const parsed = JSON.parse(result.text)
  return Array.isArray(parsed) ? parsed : [parsed]
}

/** What the caller's store holds: the session's version and every memory file's path and version. */
async function holdings() {
  const session = await call('GET', `/v1/sessions/${target}`, { user: AS })
  const memory = await call('GET', '/v1/memories', { user: AS })
  return {
    version: session.body.version,
    files: memory.body.files.map((f: { path: string; version: number }) => [f.path, f.version]),
  }
}

describe('/mcp, fuzzed', () => {
  it('never answers 5xx; errors are JSON-RPC errors or isError results; nothing refused writes anything', async () => {
    await fc.assert(
      fc.asyncProperty(body, headers, async (sent, extra) => {
        const before = await holdings()
        const result = await call('POST', '/mcp', {
          user: AS,
          body: sent,
          headers: { Accept: 'application/json, text/event-stream', ...(extra ?? {}) },
        })
        const what = `${JSON.stringify(extra)} ${sent.slice(0, 400)} → ${result.status} ${result.text.slice(0, 400)}`
        expect(result.status, what).toBeLessThan(500)
        if (result.status === 202) {
          // A notification (no id): accepted, nothing answered.
          expect(result.text, what).toBe('')
          return
        }
        const messages = answered(result)
        if (result.status >= 400) {
          expect(messages, what).toHaveLength(1)
          expect(messages[0], what).toMatchObject({ jsonrpc: '2.0' })
          expectRpcError((messages[0] as { error: unknown }).error, what)
        }
        let refused = result.status >= 400
        for (const answer of messages as { jsonrpc: string; result?: any; error?: unknown }[]) {
          expect(answer.jsonrpc, what).toBe('2.0')
          if ('error' in answer) {
            expectRpcError(answer.error, what)
            refused = true
          } else if (answer.result?.isError) {
            expect(answer.result.content[0].text.length, what).toBeGreaterThan(0)
            refused = true
          } else expect(answer, what).toHaveProperty('result')
        }
        // Only memory writes may change anything, and nothing refused may.
        const memoryCall = /"name":"memory"/.test(sent) && !sent.startsWith('[')
        if (refused || !memoryCall) expect(await holdings(), what).toEqual(before)
      }),
      { numRuns: 300, seed: 4 },
    )
  })

  it('a body over the SDK’s 4 MiB bound is its 413, a JSON-RPC error, on either revision', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_sessions', arguments: { query: 'x'.repeat(4 * 1024 * 1024) } },
    })
    for (const version of ['2025-06-18', '2026-07-28']) {
      const result = await call('POST', '/mcp', {
        user: AS,
        body: huge,
        headers: { Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': version },
      })
      expect(result.status, version).toBe(413)
      expectRpcError(JSON.parse(result.text).error, version)
    }
  })
})
