/**
 * Hostile input: every route fed malformed, mistyped, oversized, deeply nested and odd input.
 * Invalid input gets a contract error (4xx with code and message) and writes nothing; valid but
 * unusual input is stored and returned byte for byte; nothing is ever a 500.
 */

import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SIZE_LIMITS } from '../../src/contract/limits'
import { append, assistant, type Call, call, newSessionId, tokenFor, user } from '../helpers'

/** A 4xx in the contract's shape. */
function expectClientError(result: Call) {
  expect(result.status, result.text).toBeGreaterThanOrEqual(400)
  expect(result.status, result.text).toBeLessThan(500)
  expect(Object.keys(result.body ?? {})).toEqual(['error'])
  expect(result.body.error.code).toMatch(/^[a-z_]+$/)
  expect(result.body.error.message.length).toBeGreaterThan(0)
}

const version = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body?.version ?? null

/** Sends raw bytes as a JSON body. */
async function raw(method: string, path: string, body?: BodyInit) {
  const response = await exports.default.fetch(
    new Request(`https://sessions.test${path}`, {
      method,
      headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
      body,
    }),
  )
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined } as Call
}

const deep = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth)

describe('hostile input, table-driven', () => {
  const cases: [string, string, string | Uint8Array][] = [
    ['truncated JSON', 'events', '{"events":[{"message":{"role":"user","content":"x"}}'],
    ['not JSON at all', 'events', 'events=1'],
    ['JSON null', 'events', 'null'],
    ['a JSON string', 'events', '"hello"'],
    ['wrong types', 'events', '{"events":"many"}'],
    ['wrong nested types', 'events', '{"events":[{"message":{"role":"user","content":42}}]}'],
    ['unknown fields', 'events', '{"events":[{"message":{"role":"user","content":"x"}}],"force":true}'],
    [
      'a very deep body',
      'events',
      `{"events":[{"message":{"role":"user","content":"x"},"metadata":{"a":${deep(100_000, '1')}}}]}`,
    ],
    [
      'deep metadata past the limit',
      'events',
      `{"events":[{"message":{"role":"user","content":"x"},"metadata":{"a":${deep(40, '1')}}}]}`,
    ],
    [
      'a huge array',
      'events',
      `{"events":[${Array.from({ length: 5000 }, () => '{"message":{"role":"user","content":"x"}}').join(',')}]}`,
    ],
    [
      'a huge array in metadata',
      'events',
      `{"events":[{"message":{"role":"user","content":"x"},"metadata":{"a":[${'0,'.repeat(300_000)}0]}}]}`,
    ],
    [
      'invalid UTF-8 bytes',
      'events',
      new Uint8Array([
        ...new TextEncoder().encode('{"events":[{"message":{"role":"user","content":"'),
        0xff,
        0xfe,
        ...new TextEncoder().encode('"}}]}'),
      ]),
    ],
    [
      'duplicate ids',
      'events',
      '{"events":[{"id":"a","message":{"role":"user","content":"x"}},{"id":"a","message":{"role":"user","content":"y"}}]}',
    ],
    ['a path-traversal id', 'events', '{"events":[{"id":"../../etc/passwd","message":{"role":"user","content":"x"}}]}'],
    ['an SQL-looking id', 'events', `{"events":[{"id":"x'; DROP TABLE events; --","message":{"role":"user","content":"x"}}]}`],
    ['an over-long id', 'events', `{"events":[{"id":"${'a'.repeat(129)}","message":{"role":"user","content":"x"}}]}`],
    ['a negative window', 'compact', '{"strategy":{"window":{"lastEvents":-1}}}'],
    ['a zero window', 'compact', '{"strategy":{"window":{"lastTurns":0}}}'],
    ['a fractional trigger', 'compact', '{"trigger":{"tokenCount":2.5}}'],
    ['a NaN-ish trigger', 'compact', '{"trigger":{"turnCount":"NaN"}}'],
    ['an infinite window', 'compact', '{"strategy":{"window":{"tokenBudget":1e999}}}'],
    ['a trigger nested too deep', 'compact', `{"trigger":${'{"anyOf":['.repeat(20)}{"always":true}${']}'.repeat(20)}}`],
    ['a rewind to no event', 'rewind', '{"to":"nope"}'],
    ['a rewind to a number', 'rewind', '{"to":42}'],
    ['a rewind to a position not offered', 'rewind', '{"to":null,"position":"after"}'],
    ['a turn with no content', 'turns', '{"content":""}'],
    ['a turn with a bad compaction', 'turns', '{"content":"x","compaction":{"trigger":{"turnCount":-5}}}'],
  ]

  it.each(cases)('%s → a 4xx of the contract, nothing written', async (_name, route, body) => {
    const id = newSessionId('hostile')
    await append(id, [user('already here')])
    const result = await raw('POST', `/v1/sessions/${id}/${route}`, body)
    expectClientError(result)
    expect(await version(id)).toBe(1)
  })

  it.each([
    ['/v1/sessions/..%2F..%2Fetc', 'GET'],
    ['/v1/sessions/%00', 'GET'],
    [`/v1/sessions/${encodeURIComponent("x' OR '1'='1")}`, 'GET'],
    [`/v1/sessions/${'z'.repeat(500)}/view`, 'GET'],
    ['/v1/sessions/ok/events?after=-1', 'GET'],
    ['/v1/sessions/ok/events?limit=NaN', 'GET'],
    ['/v1/sessions/ok/events?after=1&after=2', 'GET'],
    ['/v1/sessions?limit=1e3', 'GET'],
    ['/v1/sessions/ok/view?format=../../', 'GET'],
    ['/v1/sessions/ok/events', 'PUT'],
  ])('%s (%s) → a 4xx of the contract', async (path, method) => {
    expectClientError(await call(method, path))
  })

  it('stores valid but unusual input byte for byte: SQL-looking text, any unicode, surrogate pairs, content at the limit', async () => {
    const id = newSessionId('unusual')
    const contents = [
      'Robert\'); DROP TABLE events;-- " \\ \u0000',
      '🙂 é 日本語 \u202e rtl \ufeff bom 𝒜',
      'an astral symbol \ud83e\udd51 (a surrogate pair)',
      '<|endoftext|> <script>alert(1)</script>',
      'x'.repeat(SIZE_LIMITS.eventContentBytes),
    ]
    const written = await call('POST', `/v1/sessions/${id}/events`, {
      body: {
        events: contents.map((content, i) => ({
          id: `u${i}.${"'"}`.replace("'", '_'),
          message: { role: 'user', content },
          metadata: { note: contents[i]!.slice(0, 50) },
        })),
      },
    })
    expect(written.status).toBe(201)
    const log = await call('GET', `/v1/sessions/${id}/events`)
    expect(log.body.events.map((e: { message: { content: string } }) => e.message.content)).toEqual(contents)
    expect(log.body.events.map((e: { metadata: { note: string } }) => e.metadata.note)).toEqual(
      contents.map((c) => c.slice(0, 50)),
    )
    const view = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(view.body.messages.map((m: { content: string }) => m.content)).toEqual(contents)
  })

  it('refuses "." and ".." as session ids (URL dot segments), and accepts other odd ids as plain names', async () => {
    for (const id of ['.', '..']) {
      const result = await call('POST', '/v1/sessions', { body: { id } })
      expectClientError(result)
      expect(result.body.error.message).toBe('id: must not be "." or ".." (URL dot segments)')
    }
    for (const id of ['...', 'a:b:c', '--', 'DROP.TABLE', '.hidden']) {
      const result = await call('POST', `/v1/sessions/${encodeURIComponent(id)}/events`, { body: { events: [user('x')] } })
      expect(result.status, id).toBe(201)
      expect((await call('GET', `/v1/sessions/${encodeURIComponent(id)}`)).body.id).toBe(id)
    }
  })
})

describe('hostile input, generated', () => {
  const jsonish = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }),
    fc.record({ events: fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 5 }) }),
    fc.record(
      {
        events: fc.array(
          fc.record({
            id: fc.string(),
            message: fc.record({ role: fc.string(), content: fc.oneof(fc.string(), fc.constant(null), fc.integer()) }),
          }),
          { maxLength: 4 },
        ),
        expectedVersion: fc.oneof(fc.integer(), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    ),
    fc.record({ trigger: fc.jsonValue({ maxDepth: 5 }), strategy: fc.jsonValue({ maxDepth: 4 }) }, { requiredKeys: [] }),
    fc.record(
      {
        content: fc.oneof(fc.string(), fc.integer()),
        stream: fc.jsonValue({ maxDepth: 1 }),
        compaction: fc.jsonValue({ maxDepth: 3 }),
        model: fc.string(),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        to: fc.oneof(fc.string(), fc.constant(null), fc.integer(), fc.constantFrom('u0', 'a0')),
        position: fc.oneof(fc.string(), fc.constantFrom('at', 'before')),
        expectedVersion: fc.oneof(fc.integer(), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    ),
    // The edits' bodies: a turn that edits or regenerates, a fork, pins, an import as JSON, a webhook.
    fc.record(
      {
        content: fc.oneof(fc.string(), fc.integer()),
        rewind: fc.oneof(
          fc.jsonValue({ maxDepth: 2 }),
          fc.record({ to: fc.constantFrom('u0', 'a0', 'nope'), position: fc.string() }),
        ),
        regenerate: fc.jsonValue({ maxDepth: 1 }),
        id: fc.oneof(fc.string(), fc.constantFrom('u0', 'a0')),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        id: fc.oneof(fc.string({ maxLength: 140 }), fc.constantFrom('target', '..', '')),
        at: fc.oneof(fc.string(), fc.constantFrom('u0', 'a0'), fc.integer()),
        position: fc.oneof(fc.string(), fc.constantFrom('at', 'before')),
        metadata: fc.jsonValue({ maxDepth: 3 }),
        ttlSeconds: fc.oneof(fc.integer(), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        pin: fc.oneof(fc.array(fc.oneof(fc.string(), fc.constantFrom('u0', 'a0'))), fc.jsonValue({ maxDepth: 2 })),
        unpin: fc.oneof(fc.array(fc.string()), fc.jsonValue({ maxDepth: 2 })),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        format: fc.oneof(fc.string(), fc.constantFrom('openai', 'anthropic', 'chatgpt')),
        messages: fc.array(fc.record({ role: fc.string(), content: fc.jsonValue({ maxDepth: 2 }) }), { maxLength: 4 }),
        mapping: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        // Never a URL that could be delivered to: only refusals are exercised here.
        url: fc.oneof(
          fc.string(),
          fc.constantFrom('http://example.com/h', 'ftp://a/b', 'https://', 'https://user:pw@example.com/h'),
        ),
        events: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
        secret: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: ['url'] },
    ),
  )
  const route = fc.constantFrom(
    ['POST', 'events'],
    ['POST', 'compact'],
    ['POST', 'rewind'],
    ['POST', 'turns'],
    ['PATCH', ''],
    ['POST', '/v1/sessions'],
    ['POST', 'fork'],
    ['POST', 'pins'],
    ['POST', 'compactions/evt_nope/undo'],
    ['POST', 'import'],
    ['GET', 'branches'],
    ['POST', '/v1/webhooks'],
  )
  const id = fc.oneof(
    fc.constant('target'),
    fc.string({ maxLength: 140 }),
    fc.constantFrom('..', '%2e%2e', "1' OR 1=1", 'a/b', ''),
  )

  it('never answers 500; a 4xx writes nothing', async () => {
    const target = newSessionId('fuzz')
    await append(target, [user('seed', 'u0'), assistant('reply', 'a0')])
    await fc.assert(
      fc.asyncProperty(
        route,
        id,
        fc.oneof(
          jsonish.map((v) => JSON.stringify(v)),
          fc.string({ maxLength: 200 }),
        ),
        async ([method, path], rawId, body) => {
          const sessionId = rawId === 'target' ? target : rawId
          const url = path.startsWith('/') ? path : `/v1/sessions/${encodeURIComponent(sessionId)}${path ? `/${path}` : ''}`
          const before = await version(target)
          const result = await raw(method!, url, method === 'GET' ? undefined : body)
          expect(result.status, `${method} ${url} ${body.slice(0, 200)} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
          if (result.status >= 400) {
            expectClientError(result)
            expect(await version(target)).toBe(before)
          }
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('hostile input, generated: import files, reads with odd ids and queries, door headers', () => {
  /** Sends a body with its own Content-Type and extra headers. */
  async function sent(method: string, path: string, body: string | undefined, headers: Record<string, string>) {
    const response = await exports.default.fetch(
      new Request(`https://sessions.test${path}`, {
        method,
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, ...headers },
        body,
      }),
    )
    const text = await response.text()
    let parsed: unknown
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed } as Call
  }

  it('jsonl import files, whole, cut, reordered or corrupted: never a 500; a refused one writes nothing and leaves no session', async () => {
    const target = newSessionId('fuzz')
    await append(target, [user('seed', 'u0'), assistant('reply', 'a0')])
    const lines = (await call('GET', `/v1/sessions/${target}/export`)).text.trim().split('\n')
    const line = fc.oneof(
      fc.constantFrom(...lines),
      fc.constantFrom(...lines).map((l) => l.slice(0, Math.floor(l.length / 2))),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            type: fc.constantFrom('MESSAGE', 'COMPACTION', 'REWIND', 'PINS', 'session', 'nope'),
            id: fc.oneof(fc.string(), fc.constantFrom('u0', 'a0', 'x1')),
            seq: fc.oneof(fc.integer(), fc.string()),
            message: fc.jsonValue({ maxDepth: 2 }),
            boundary: fc.jsonValue({ maxDepth: 2 }),
            rewind: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: ['type'] },
        )
        .map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 80 }),
    )
    const into = fc.oneof(fc.constant('target'), fc.constant('fresh'))
    await fc.assert(
      fc.asyncProperty(into, fc.array(line, { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), async (where, file, eol) => {
        const id = where === 'target' ? target : newSessionId('fuzz-import')
        const before = await version(target)
        const result = await sent('POST', `/v1/sessions/${id}/import`, file.join(eol), {
          'Content-Type': 'application/x-ndjson',
        })
        expect(result.status, `${file.join(eol).slice(0, 300)} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
        if (result.status >= 400) {
          expectClientError(result)
          expect(await version(target)).toBe(before)
          if (where === 'fresh') expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('reads with odd ids and query strings (export, events, branches, stored responses, webhook deliveries): never a 500', async () => {
    const target = newSessionId('fuzz')
    await append(target, [user('seed', 'u0'), assistant('reply', 'a0')])
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.integer().map(String),
      fc.constantFrom('', '-1', '0', '1e9', 'NaN', 'jsonl', 'openai', 'anthropic', 'asc', 'desc', 'failed', 'pending'),
    )
    const path = fc.constantFrom(
      `/v1/sessions/${target}/export`,
      `/v1/sessions/${target}/events`,
      `/v1/sessions/${target}/branches`,
      '/v1/export',
      '/v1/responses/{id}',
      '/v1/responses/{id}/input_items',
      '/v1/webhooks/{id}/deliveries',
      '/v1/webhooks/{id}',
    )
    const query = fc.dictionary(fc.constantFrom('format', 'after', 'limit', 'before', 'order', 'status', 'x'), value, {
      maxKeys: 3,
    })
    const id = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.constantFrom('resp_x', `resp_${target}`, 'wh_00000000000000000000000000000000', '%2e%2e', ''),
    )
    await fc.assert(
      fc.asyncProperty(path, id, query, async (template, rawId, params) => {
        const url = `${template.replace('{id}', encodeURIComponent(rawId))}?${new URLSearchParams(params)}`
        const result = await sent('GET', url, undefined, {})
        expect(result.status, `${url} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
        if (result.status >= 400) expect(Object.keys(result.body ?? {}), url).toEqual(['error'])
      }),
      { numRuns: 300 },
    )
  })

  it('the doors’ headers with any value (X-Regenerate, X-On-Diverge, retry counts, Idempotency-Key, Claude Code’s and Codex’s): never a 500; a 4xx writes nothing', async () => {
    const target = newSessionId('fuzz-door')
    const history = [
      { role: 'user', content: 'seed' },
      { role: 'assistant', content: 'Echo: seed' },
    ]
    expect(
      (
        await call('POST', '/v1/chat/completions', {
          body: { model: 'echo', messages: history.slice(0, 1) },
          headers: { 'X-Session-Id': target },
        })
      ).status,
    ).toBe(200)
    const header = fc.oneof(
      fc.string({ maxLength: 60 }).filter((v) => /^[\x20-\x7e]*$/.test(v)),
      fc.constantFrom('true', 'false', 'rewind', 'reject', '0', '1', '-1', '99999999999999999999', '{"turn_id":"t"}', ''),
    )
    const headers = fc.dictionary(
      fc.constantFrom(
        'X-Regenerate',
        'X-On-Diverge',
        'x-stainless-retry-count',
        'Idempotency-Key',
        'x-claude-code-session-id',
        'x-codex-turn-metadata',
        'anthropic-version',
        'X-Recall',
      ),
      header,
      { maxKeys: 4 },
    )
    const door = fc.constantFrom('chat', 'messages', 'responses')
    const messages = fc.constantFrom([...history, { role: 'user', content: 'next' }], history.slice(0, 1), [
      { role: 'user', content: 'edited' },
    ])
    await fc.assert(
      fc.asyncProperty(door, headers, messages, async (which, extra, sentMessages) => {
        const before = await version(target)
        const body =
          which === 'chat'
            ? { model: 'echo', messages: sentMessages }
            : which === 'messages'
              ? { model: 'echo', max_tokens: 64, messages: sentMessages }
              : { model: 'echo', input: sentMessages }
        const path = { chat: '/v1/chat/completions', messages: '/v1/messages', responses: '/v1/responses' }[which]
        const result = await sent('POST', path, JSON.stringify(body), {
          'Content-Type': 'application/json',
          'X-Session-Id': target,
          ...extra,
        })
        expect(result.status, `${which} ${JSON.stringify(extra)} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
        if (result.status >= 400) {
          expect(Object.keys(result.body ?? {}).length, result.text).toBeGreaterThan(0)
          expect(await version(target)).toBe(before)
        }
      }),
      { numRuns: 150 },
    )
  })
})
