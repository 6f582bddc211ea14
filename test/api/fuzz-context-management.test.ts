/**
 * Anthropic `context_management` fuzzed on the Messages door (round4.md §2): the three edits the
 * service serves with random triggers, keeps, thresholds, tool lists and inputs flags, wrong
 * types, unknown fields and edit types. Never a 500; a 4xx is Anthropic's error shape naming the
 * field, and writes nothing to the session (a fresh one stays absent; a used one keeps its version).
 */

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Call, call, newSessionId } from '../helpers'
import { a, expectAnthropicError, send, u } from '../support/messages-door'

const readFile = { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }

/** An agent's history: a question, then three read_file calls each answered with ~1 KB. */
const history = [
  u('Read the three files and report.'),
  ...[1, 2, 3].flatMap((step) => [
    a([{ type: 'tool_use', id: `toolu_${step}`, name: 'read_file', input: { path: `f${step}.txt` } }]),
    u([{ type: 'tool_result', tool_use_id: `toolu_${step}`, content: `file ${step}: ${'lorem ipsum '.repeat(80)}` }]),
  ]),
]

/** A session holding {@link history} and its reply: a run that resends them goes on from there. */
let used: { id: string; reply: unknown }

beforeAll(async () => {
  const id = newSessionId('fuzz-cm-used')
  const seeded = await send(id, { model: 'echo', tools: [readFile], messages: history })
  expect(seeded.status, seeded.text).toBe(200)
  used = { id, reply: a(seeded.body.content) }

  // The file's first request loads the Worker: seconds on a 2-core machine (as a test's timeout allows).
}, 30_000)

const junk = fc.jsonValue({ maxDepth: 2 })
const count = fc.oneof(fc.integer({ min: -3, max: 12_000 }), fc.double(), fc.constantFrom('3', null))
const tokens = (type: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ type: fc.constant(type), value: count }) },
    { weight: 1, arbitrary: fc.record({ type: fc.string({ maxLength: 12 }), value: count }) },
    { weight: 1, arbitrary: junk },
  )
const toolNames = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom('read_file', 'write_file', ''), fc.string({ maxLength: 20 })), { maxLength: 4 }),
  fc.constant(null),
  junk,
)
/** Now and then a field no edit has. */
const stray = fc.option(fc.record({ pause: fc.boolean(), keep_all: junk }, { requiredKeys: [] }), { freq: 5 })
const withStray = <T>(edit: fc.Arbitrary<T>) => fc.tuple(edit, stray).map(([e, extra]) => ({ ...e, ...(extra ?? {}) }))

const clearToolUses = withStray(
  fc.record(
    {
      type: fc.constant('clear_tool_uses_20250919'),
      trigger: fc.oneof(tokens('input_tokens'), tokens('tool_uses')),
      keep: tokens('tool_uses'),
      clear_at_least: fc.oneof(tokens('input_tokens'), fc.constant(null)),
      exclude_tools: toolNames,
      clear_tool_inputs: fc.oneof(fc.boolean(), toolNames),
    },
    { requiredKeys: ['type'] },
  ),
)
const clearThinking = withStray(
  fc.record(
    {
      type: fc.constant('clear_thinking_20251015'),
      keep: fc.oneof(tokens('thinking_turns'), fc.constantFrom('all', { type: 'all' }, 'none'), junk),
    },
    { requiredKeys: ['type'] },
  ),
)
const compact = withStray(
  fc.record(
    {
      type: fc.constant('compact_20260112'),
      trigger: fc.oneof(tokens('input_tokens'), fc.constant(null)),
      instructions: fc.oneof(fc.string({ maxLength: 60 }), fc.constant(null), fc.integer()),
      pause_after_compaction: fc.oneof(fc.boolean(), fc.string({ maxLength: 5 })),
    },
    { requiredKeys: ['type'] },
  ),
)
const unknownEdit = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom('clear_everything_20990101', 'clear_tool_uses_20250101', 'compact_20250101', '', 'toString', '__proto__'),
      fc.string({ maxLength: 20 }),
      fc.integer(),
    ),
    keep: junk,
  },
  { requiredKeys: [] },
)
const edit = fc.oneof(
  { weight: 3, arbitrary: clearToolUses },
  { weight: 2, arbitrary: clearThinking },
  { weight: 2, arbitrary: compact },
  { weight: 1, arbitrary: unknownEdit },
  { weight: 1, arbitrary: junk },
)
/** Edits the service takes, with values that fire on the history (about 800 tokens) as often as not. */
const names = fc.subarray(['read_file', 'write_file'])
const validEdit = fc.oneof(
  fc.record(
    {
      type: fc.constant('clear_tool_uses_20250919'),
      trigger: fc.oneof(
        fc.record({ type: fc.constant('input_tokens'), value: fc.integer({ min: 1, max: 2000 }) }),
        fc.record({ type: fc.constant('tool_uses'), value: fc.integer({ min: 1, max: 4 }) }),
      ),
      keep: fc.record({ type: fc.constant('tool_uses'), value: fc.integer({ min: 0, max: 4 }) }),
      clear_at_least: fc.oneof(
        fc.constant(null),
        fc.record({ type: fc.constant('input_tokens'), value: fc.integer({ min: 0, max: 800 }) }),
      ),
      exclude_tools: names,
      clear_tool_inputs: fc.oneof(fc.boolean(), names),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('clear_thinking_20251015'),
      keep: fc.oneof(
        fc.record({ type: fc.constant('thinking_turns'), value: fc.integer({ min: 1, max: 3 }) }),
        fc.constantFrom('all', { type: 'all' }),
      ),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constant('compact_20260112'),
      trigger: fc.oneof(
        fc.constant(null),
        fc.record({ type: fc.constant('input_tokens'), value: fc.integer({ min: 1, max: 2000 }) }),
      ),
      instructions: fc.string({ maxLength: 60 }),
      pause_after_compaction: fc.boolean(),
    },
    { requiredKeys: ['type'] },
  ),
)
/** Valid edits (each type once), and now and then one hostile edit among them; now and then no object at all. */
const contextManagement = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(fc.uniqueArray(validEdit, { selector: (e) => e.type, maxLength: 3 }), fc.option(edit, { freq: 2 }), fc.nat())
      .map(([edits, one, at]) => ({
        edits: one === null ? edits : (edits as unknown[]).toSpliced(at % (edits.length + 1), 0, one),
      })),
  },
  { weight: 1, arbitrary: fc.array(edit, { minLength: 9, maxLength: 10 }).map((edits) => ({ edits })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(null, {}, { edits: null }, { edits: 'clear' }, { edits: {} }, [], 'auto', 0),
  },
  { weight: 1, arbitrary: fc.record({ edits: fc.array(edit, { maxLength: 2 }), other: junk }) },
)

/** The session's version, or null when it does not exist. */
const version = async (id: string) => {
  const session = await call('GET', `/v1/sessions/${id}`)
  return session.status === 200 ? (session.body.version as number) : null
}

/** Anthropic's error shape, its message starting with the field it names. */
function expectNamedAnthropicError(result: Call) {
  expectAnthropicError(result, result.status, result.body?.error?.type)
  expect(result.body.error.message, result.text).toMatch(/^[A-Za-z_]+(\[\d+\]|\.[A-Za-z_]+)*: /)
}

describe('context_management on the Messages door, fuzzed', () => {
  it('never answers 5xx; a 4xx names the field in Anthropic’s shape and writes nothing; applied_edits are of the types asked for', async () => {
    let runs = 0
    await fc.assert(
      fc.asyncProperty(
        contextManagement,
        fc.boolean(),
        fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        async (context_management, fresh, stream) => {
          const id = fresh ? newSessionId('fuzz-cm') : used.id
          const messages = fresh ? history : [...history, used.reply, u(`And now, ${++runs}?`)]
          const before = await version(id)
          const result = await send(id, { model: 'echo', tools: [readFile], messages, context_management, stream })
          const what = `${JSON.stringify(context_management).slice(0, 400)} → ${result.status} ${result.text.slice(0, 400)}`
          expect(result.status, what).toBeLessThan(500)
          if (result.status < 400) {
            // A plain answer says what the edits did: only edits of the types asked for.
            if (stream) return
            const asked = ((context_management as { edits?: { type: unknown }[] } | null)?.edits ?? []).map((e) => e.type)
            for (const applied of result.body.context_management?.applied_edits ?? []) expect(asked, what).toContain(applied.type)
            return
          }
          expectNamedAnthropicError(result)
          expect(await version(id), what).toBe(before)
        },
      ),
      { numRuns: 100, seed: 53 },
    )
  })
})
