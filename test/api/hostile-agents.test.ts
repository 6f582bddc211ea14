/**
 * Hostile input for what agents use beyond plain turns: tool definitions and tool results on
 * turns, chat-completions bodies and headers, search, compactions, context, dry runs, and tokens.
 * Generated with fast-check: never a 500, and a 4xx (in the contract's shape) writes nothing.
 */

import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { append, type Call, call, newSessionId, tokenFor, user } from '../helpers'

const version = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body?.version ?? null

async function send(method: string, path: string, body: string | undefined, headers: Record<string, string | undefined>) {
  const all = new Headers({ Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' })
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) all.set(name, value)
  const response = await exports.default.fetch(new Request(`https://sessions.test${path}`, { method, headers: all, body }))
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined // a stream (SSE) answer
  }
  return { status: response.status, headers: response.headers, text, body: parsed } as Call
}

/** A 4xx in the contract's shape. */
function expectClientError(result: Call) {
  expect(Object.keys(result.body ?? {}), result.text).toEqual(['error'])
  expect(result.body.error.code).toMatch(/^[a-z_]+$/)
  expect(result.body.error.message.length).toBeGreaterThan(0)
}

/** A session whose newest turn has a pending call `k1`, so tool results are sometimes right. */
async function withPendingCall() {
  const id = newSessionId('hostile2')
  await append(id, [
    user('Weather?'),
    {
      message: {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'k1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
    },
  ])
  return id
}

const anything = fc.jsonValue({ maxDepth: 4 })
const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800'),
)
const toolDefinition = fc.oneof(
  fc.record(
    {
      type: fc.oneof(fc.constant('function'), text),
      function: fc.oneof(
        fc.record(
          { name: fc.oneof(fc.constant('get_weather'), text), description: text, parameters: anything, strict: anything },
          { requiredKeys: [] },
        ),
        anything,
      ),
    },
    { requiredKeys: [] },
  ),
  anything,
)
const toolResult = fc.record(
  {
    id: fc.oneof(fc.constant('k1'), text),
    name: fc.oneof(fc.constant('get_weather'), text),
    data: fc.oneof(text, anything),
    error: text,
  },
  { requiredKeys: [] },
)
const model = fc.constantFrom('echo', 'agent-k9', 'tools-_,_', 'recall-x')
const turnBody = fc.record(
  {
    content: fc.oneof(text, anything),
    toolResults: fc.oneof(fc.array(toolResult, { maxLength: 3 }), anything),
    tools: fc.oneof(fc.array(toolDefinition, { maxLength: 3 }), anything),
    toolChoice: fc.oneof(fc.constantFrom('auto', 'none', 'required', 'sometimes'), anything),
    parallelToolCalls: anything,
    options: fc.oneof(
      fc.record(
        {
          temperature: anything,
          topP: anything,
          maxTokens: fc.oneof(fc.integer(), fc.double(), anything),
          stop: fc.oneof(fc.array(text, { maxLength: 6 }), anything),
          seed: anything,
          responseFormat: fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'xml') }), anything),
        },
        { requiredKeys: [] },
      ),
      anything,
    ),
    recall: anything,
    system: anything,
    id: fc.oneof(text, anything),
    model,
    compaction: fc.constant(false),
  },
  { requiredKeys: [] },
)
const contentPart = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('text', 'image_url', 'input_audio', 'file', 'refusal', 'video'),
      text: fc.oneof(text, anything),
      image_url: anything,
    },
    { requiredKeys: [] },
  ),
  anything,
)
const chatMessage = fc.record(
  {
    role: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function', 'robot'),
    content: fc.oneof(text, fc.constant(null), fc.array(contentPart, { maxLength: 4 }), anything),
    tool_calls: fc.oneof(
      fc.array(
        fc.record(
          {
            id: text,
            type: fc.constantFrom('function', 'other'),
            function: fc.record({ name: text, arguments: fc.oneof(text, anything) }),
          },
          { requiredKeys: [] },
        ),
        { maxLength: 2 },
      ),
      anything,
    ),
    tool_call_id: text,
    name: text,
  },
  { requiredKeys: ['role'] },
)
const chatBody = fc.record(
  {
    model,
    messages: fc.oneof(fc.array(chatMessage, { maxLength: 6 }), anything),
    n: fc.oneof(fc.integer({ min: -1, max: 3 }), anything),
    logprobs: anything,
    top_logprobs: anything,
    audio: anything,
    modalities: fc.oneof(fc.constant(['text']), fc.constant(['text', 'audio']), anything),
    prediction: anything,
    tools: fc.oneof(fc.array(toolDefinition, { maxLength: 2 }), anything),
    tool_choice: anything,
    max_tokens: anything,
    max_completion_tokens: anything,
    stream_options: anything,
    response_format: anything,
    temperature: anything,
    function_call: anything,
  },
  { requiredKeys: [] },
)
const header = (value: fc.Arbitrary<string>) => fc.option(value, { nil: undefined })

describe('hostile input for agents, the chat-completions door, search and insight, generated', () => {
  it('turns with tools and tool results: never a 500; a 4xx writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          turnBody.map((v) => JSON.stringify(v)),
          text,
        ),
        async (body) => {
          const id = await withPendingCall()
          const before = await version(id)
          const result = await send('POST', `/v1/sessions/${id}/turns`, body, {})
          expect(result.status, `${body.slice(0, 300)} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
          if (result.status >= 400) {
            expectClientError(result)
            expect(await version(id)).toBe(before)
          }
        },
      ),
      { numRuns: 120 },
    )
  })

  it('chat completions, with odd X-Session-Id, Idempotency-Key and X-Recall headers: never a 500; a 4xx writes nothing', async () => {
    const target = await withPendingCall()
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          chatBody.map((v) => JSON.stringify(v)),
          text,
        ),
        header(fc.oneof(fc.constant(target), text)),
        header(text),
        header(fc.oneof(fc.constantFrom('on', 'off'), text)),
        async (body, sessionId, idempotencyKey, recall) => {
          const before = await version(target)
          const result = await send('POST', '/v1/chat/completions', body, {
            'X-Session-Id': sessionId?.replace(/[^\x20-\x7e]/g, ''),
            'Idempotency-Key': idempotencyKey?.replace(/[^\x20-\x7e]/g, ''),
            'X-Recall': recall?.replace(/[^\x20-\x7e]/g, ''),
          })
          expect(result.status, `${body.slice(0, 300)} → ${result.text.slice(0, 300)}`).toBeLessThan(500)
          if (result.status >= 400) {
            expectClientError(result)
            expect(await version(target)).toBe(before)
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('a resent history of 2,001 messages in content parts: a 200; with each refused field, a 400 naming it and nothing written', async () => {
    const target = newSessionId('hostile2-history')
    const messages = Array.from({ length: 2001 }, (_, i) =>
      i % 2 ? { role: 'assistant', content: `reply ${i}` } : { role: 'user', content: [{ type: 'text', text: `part ${i}` }] },
    )
    // The history is stored first, as a client that has been talking a while has it; the resend of
    // all of it then adds only the newest message (the fit pass compacts the rest away).
    const stored = messages.slice(0, -1).map((m) => ({
      message: { role: m.role, content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('\n') },
    }))
    for (let i = 0; i < stored.length; i += 1000)
      expect((await call('POST', `/v1/sessions/${target}/events`, { body: { events: stored.slice(i, i + 1000) } })).status).toBe(
        201,
      )
    const ok = await send('POST', '/v1/chat/completions', JSON.stringify({ model: 'echo', messages }), { 'X-Session-Id': target })
    expect(ok.status, ok.text.slice(0, 300)).toBe(200)
    for (const [field, value] of [
      ['n', 2],
      ['logprobs', true],
      ['top_logprobs', 3],
      ['audio', { voice: 'alloy', format: 'wav' }],
      ['modalities', ['text', 'audio']],
      ['prediction', { type: 'content', content: 'x' }],
    ] as const) {
      const before = await version(target)
      const refused = await send('POST', '/v1/chat/completions', JSON.stringify({ model: 'echo', messages, [field]: value }), {
        'X-Session-Id': target,
      })
      expect(refused.status, refused.text).toBe(400)
      expect(refused.body.error.message).toContain(field)
      expect(await version(target)).toBe(before)
    }
  })

  it('search, compactions, context and dry runs with any parameters: never a 500; nothing is written', async () => {
    const target = await withPendingCall()
    const params = fc.dictionary(fc.constantFrom('q', 'limit', 'scope', 'role', 'cursor', 'before', 'format', 'x'), text, {
      maxKeys: 5,
    })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('search', 'compactions', 'context', 'view', 'events'),
        params,
        fc.oneof(fc.record({ dryRun: anything, strategy: anything, trigger: anything }, { requiredKeys: [] }), anything),
        async (route, query, dryRunBody) => {
          const before = await version(target)
          const search = new URLSearchParams(query as Record<string, string>)
          const read = await send('GET', `/v1/sessions/${target}/${route}?${search}`, undefined, {})
          expect(read.status, `${route}?${search} → ${read.text.slice(0, 300)}`).toBeLessThan(500)
          if (read.status >= 400) expectClientError(read)
          const dry = await send(
            'POST',
            `/v1/sessions/${target}/compact`,
            JSON.stringify({ ...Object(dryRunBody), dryRun: true }),
            {},
          )
          expect(dry.status, dry.text.slice(0, 300)).toBeLessThan(500)
          if (dry.status >= 400) expectClientError(dry)
          expect(await version(target)).toBe(before)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('any Authorization header that is not a good token: a 401 (never a 500), and nothing written', async () => {
    const target = await withPendingCall()
    const b64 = fc.base64String({ maxLength: 60 }).map((s) => s.replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_'))
    const jwtish = fc.tuple(b64, b64, b64).map((parts) => parts.join('.'))
    const headerJson = fc
      .record(
        { alg: fc.constantFrom('none', 'HS256', 'RS256', 'ES256', 'HS512', 'EdDSA', ''), kid: text, typ: text },
        { requiredKeys: [] },
      )
      .map((h) => btoa(unescape(encodeURIComponent(JSON.stringify(h)))).replaceAll('=', ''))
    const forged = fc.tuple(headerJson, b64, b64).map((parts) => parts.join('.'))
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          jwtish.map((t) => `Bearer ${t}`),
          forged.map((t) => `Bearer ${t}`),
          text.map((t) => `Bearer ${t}`),
        ),
        async (authorization) => {
          const value = authorization.replace(/[^\x20-\x7e]/g, '')
          const response = await exports.default.fetch(
            new Request(`https://sessions.test/v1/sessions/${target}/events`, {
              method: 'POST',
              headers: { Authorization: value, 'Content-Type': 'application/json' },
              body: JSON.stringify({ events: [{ message: { role: 'user', content: 'forged' } }] }),
            }),
          )
          expect(response.status, value).toBe(401)
          expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
        },
      ),
      { numRuns: 200 },
    )
    expect(await version(target)).toBe(2)
  })
})
