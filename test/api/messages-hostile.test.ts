/**
 * Hostile input on the Messages door: generated bodies with every block type (and made-up ones),
 * odd fields, odd session headers. Never a 500; a 4xx is Anthropic's error shape and writes
 * nothing to the session it names.
 */
import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { append, assistant, newSessionId, tokenFor, user } from '../helpers'

const text = fc.string({ maxLength: 40 })
const block = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(text, fc.integer()) }),
  fc.record({
    type: fc.constant('tool_use'),
    id: fc.oneof(text, fc.constant('')),
    name: text,
    input: fc.jsonValue({ maxDepth: 3 }),
  }),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: fc.oneof(text, fc.constant('w1')),
      content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text }), { maxLength: 3 })),
      is_error: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('redacted_thinking'), data: fc.oneof(text, fc.integer()) }),
  fc.record({ type: fc.constantFrom('image', 'document', 'server_tool_use', 'made_up'), source: fc.jsonValue({ maxDepth: 2 }) }),
  fc.jsonValue({ maxDepth: 2 }),
)
const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), text),
    content: fc.oneof(text, fc.array(block, { maxLength: 4 }), fc.constant(null)),
    cache_control: fc.constant({ type: 'ephemeral' }),
  },
  { requiredKeys: ['role'] },
)
const body = fc.record(
  {
    model: fc.oneof(fc.constant('echo'), fc.constant('claude-echo'), text, fc.integer()),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 200_000 }), text),
    messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
    system: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text }), { maxLength: 3 }), fc.integer()),
    metadata: fc.record(
      { user_id: fc.oneof(text, fc.constant('{"session_id":"../x"}'), fc.constant(null)) },
      { requiredKeys: [] },
    ),
    stream: fc.oneof(fc.boolean(), text),
    tools: fc.array(
      fc.record({
        name: text,
        type: fc.constantFrom('custom', 'web_search_20250305', 'x'),
        input_schema: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 2 },
    ),
    tool_choice: fc.record(
      { type: fc.oneof(fc.constantFrom('auto', 'any', 'tool', 'none'), text), name: text },
      { requiredKeys: [] },
    ),
    temperature: fc.oneof(fc.double(), text),
    thinking: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
)
const headers = fc.record(
  {
    'x-claude-code-session-id': fc.oneof(text, fc.constant('target')),
    'x-claude-code-agent-id': text,
    'x-claude-code-request-class': fc.constantFrom('auxiliary', 'compaction', 'main', ''),
    'anthropic-version': fc.constantFrom('2023-06-01', '2026-10-21', '1999-01-01', ''),
    'anthropic-beta': text,
  },
  { requiredKeys: [] },
)

describe('the Messages door, fuzzed', () => {
  it('never answers 500; a 4xx is in Anthropic’s shape and writes nothing', async () => {
    const target = newSessionId('fuzz-messages')
    await append(target, [user('seed', 'u0'), assistant('reply', 'a0')])
    const version = async () => {
      const response = await exports.default.fetch(
        new Request(`https://sessions.test/v1/sessions/${target}`, {
          headers: { Authorization: `Bearer ${await tokenFor('alice')}` },
        }),
      )
      return ((await response.json()) as { version: number }).version
    }
    const token = await tokenFor('alice')
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/v1/messages', '/v1/messages/count_tokens'), body, headers, async (path, sent, extra) => {
        const named = Object.fromEntries(
          Object.entries(extra)
            .filter(([, value]) => value !== '')
            .map(([name, value]) => [name, value === 'target' ? target : value]),
        )
        const before = await version()
        const response = await exports.default.fetch(
          new Request(`https://sessions.test${path}`, {
            method: 'POST',
            headers: { 'x-api-key': token, 'Content-Type': 'application/json', ...named },
            body: JSON.stringify(sent),
          }),
        )
        const answer = await response.text()
        expect(response.status, `${path} ${JSON.stringify(sent).slice(0, 300)} → ${answer.slice(0, 300)}`).toBeLessThan(500)
        if (response.status >= 400) {
          const parsed = JSON.parse(answer)
          expect(Object.keys(parsed).sort()).toEqual(['error', 'type'])
          expect(parsed.error.type).toMatch(/_error$|^request_too_large$/)
          expect(await version()).toBe(before)
        }
      }),
      { numRuns: 150 },
    )
  })
})
