/**
 * Hostile input on the Responses door and Conversations: generated bodies with every item type
 * (and made-up ones), capsules real, altered and made up, odd session headers. Never a 500; a
 * 4xx is OpenAI's error shape and writes nothing to the session it names.
 */
import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { call, newSessionId, tokenFor } from '../helpers'

const text = fc.string({ maxLength: 40 })
const part = fc.oneof(
  fc.record({ type: fc.constantFrom('input_text', 'output_text', 'text'), text: fc.oneof(text, fc.integer()) }),
  fc.record({ type: fc.constantFrom('input_image', 'input_file', 'refusal', 'made_up'), image_url: text }),
  fc.jsonValue({ maxDepth: 2 }),
)
const item = (capsule: string) =>
  fc.oneof(
    fc.record(
      {
        type: fc.constant('message'),
        role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'developer'), text),
        content: fc.oneof(text, fc.array(part, { maxLength: 3 }), fc.constant(null)),
      },
      { requiredKeys: ['role'] },
    ),
    fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }),
    fc.record(
      {
        type: fc.constant('function_call'),
        call_id: fc.oneof(text, fc.constant('w1')),
        name: text,
        arguments: fc.oneof(text, fc.integer()),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      {
        type: fc.constant('function_call_output'),
        call_id: fc.oneof(text, fc.constant('w1')),
        output: fc.oneof(text, fc.array(part)),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constant('reasoning'), id: text, summary: fc.jsonValue({ maxDepth: 2 }), encrypted_content: text }),
    fc.record({ type: fc.constant('item_reference'), id: fc.oneof(text, fc.constantFrom('msg_evt_x', 'fc_evt_x.0', 'msg_')) }),
    fc.record(
      {
        type: fc.constant('compaction'),
        id: text,
        encrypted_content: fc.oneof(text, fc.constant(capsule), fc.constant(`${capsule.slice(0, -3)}xyz`), fc.integer()),
      },
      { requiredKeys: ['type'] },
    ),
    fc.constant({ type: 'compaction_trigger' }),
    fc.record({ type: fc.constantFrom('web_search_call', 'mcp_call', 'made_up'), id: text }),
    fc.jsonValue({ maxDepth: 2 }),
  )
const body = (capsule: string) =>
  fc.record(
    {
      model: fc.oneof(fc.constant('echo'), fc.constant('agent-w1'), text, fc.integer()),
      input: fc.oneof(text, fc.array(item(capsule), { maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
      items: fc.oneof(fc.array(item(capsule), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 })),
      instructions: fc.oneof(text, fc.integer(), fc.constant(null)),
      conversation: fc.oneof(fc.constant('target'), text, fc.record({ id: fc.oneof(fc.constant('target'), text) }), fc.integer()),
      previous_response_id: fc.oneof(text, fc.constantFrom('resp_nothing', 'resp_dGFyZ2V0.evt_x'), fc.constant(null)),
      store: fc.oneof(fc.boolean(), text),
      stream: fc.oneof(fc.boolean(), text),
      tools: fc.array(
        fc.record({
          type: fc.constantFrom('function', 'web_search', 'namespace', 'mcp', 'x'),
          name: text,
          parameters: fc.jsonValue({ maxDepth: 2 }),
        }),
        { maxLength: 2 },
      ),
      tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.record({ type: text, name: text }), fc.integer()),
      context_management: fc.oneof(
        fc.array(fc.record({ type: fc.constantFrom('compaction', 'x'), compact_threshold: fc.integer() })),
        text,
      ),
      metadata: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
const headers = fc.record(
  {
    'x-session-id': fc.oneof(text, fc.constant('target')),
    'session-id': fc.oneof(text, fc.constant('target')),
    'x-on-diverge': fc.constantFrom('rewind', 'reject', 'x', ''),
    'idempotency-key': text,
  },
  { requiredKeys: [] },
)
const PATHS = [
  '/v1/responses',
  '/v1/responses/compact',
  '/v1/conversations',
  '/v1/conversations/target',
  '/v1/conversations/target/items',
]

describe('the Responses door and Conversations, fuzzed', () => {
  it('never answer 500; a 4xx is in OpenAI’s shape and writes nothing', async () => {
    const target = newSessionId('fuzz-responses')
    const user = (value: string) => ({ role: 'user', content: value })
    await call('POST', '/v1/responses', { body: { model: 'echo', input: [user('seed')] }, headers: { 'X-Session-Id': target } })
    const compacted = await call('POST', '/v1/responses', {
      body: {
        model: 'echo',
        input: [user('seed'), { role: 'assistant', content: 'Echo: seed' }, { type: 'compaction_trigger' }],
      },
      headers: { 'X-Session-Id': target },
    })
    const capsule = compacted.body.output[0].encrypted_content as string
    const token = await tokenFor('alice')
    const version = async () => (await call('GET', `/v1/sessions/${target}`)).body.version as number
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATHS), body(capsule), headers, async (path, sent, extra) => {
        const named = Object.fromEntries(
          Object.entries(extra)
            .filter(([, value]) => value !== '')
            .map(([name, value]) => [name, value === 'target' ? target : value]),
        )
        const json = JSON.stringify(sent).replaceAll('"target"', JSON.stringify(target))
        const before = await version()
        const response = await exports.default.fetch(
          new Request(`https://sessions.test${path.replace('target', target)}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...named },
            body: json,
          }),
        )
        const answer = await response.text()
        expect(response.status, `${path} ${json.slice(0, 300)} → ${answer.slice(0, 300)}`).toBeLessThan(500)
        if (response.status >= 400) {
          const parsed = JSON.parse(answer)
          expect(Object.keys(parsed)).toEqual(['error'])
          expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message', 'param', 'type'])
          expect(await version(), `${path} ${json.slice(0, 300)} → ${answer.slice(0, 300)}`).toBe(before)
        }
      }),
      { numRuns: 150 },
    )
  })
})
