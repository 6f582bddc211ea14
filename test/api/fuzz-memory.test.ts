/**
 * The memory store's REST routes fuzzed (round4.md §5): paths with traversal, dot and empty
 * segments, NUL, odd Unicode (combining marks, right-to-left, astral), over-long and oddly encoded;
 * random methods, bodies (PUT, PATCH's replace and insert, rename), versions, prefixes and
 * If-Match headers. Never a 5xx; a 400 names its field first; any 4xx writes nothing (every
 * version of every file, as the user's export holds them, is the same before and after); a write
 * answered names its file by a path the contract allows, and reads back as written.
 */

import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { pathProblem } from '../../src/contract/memory-path'
import { type Call, call, newSessionId, turn } from '../helpers'
import { hostileMemoryCommand, KEEPER, validMemoryCommand } from '../support/memory-commands'

/** A user of this file's own: a memory store is per user. */
const AS = `memory-fuzz-${Date.now().toString(36)}`

beforeAll(async () => {
  for (const [path, content] of [
    ['a.md', 'alpha\nbeta\n'],
    ['dir/b.md', 'tea and tea'],
    [encodeURIComponent('日本語'), 'ノート'],
    [KEEPER.path.slice('/memories/'.length), KEEPER.content],
  ]) {
    const written = await call('PUT', `/v1/memories/${path}`, { user: AS, body: { content } })
    expect(written.status, written.text).toBe(200)
  }
  // What the properties compare: every version, read from the export.
  expect(await everyVersion()).toHaveLength(4)
  // The file's first request loads the Worker: seconds on a 2-core machine (as a test's timeout allows).
}, 30_000)

/** A path segment: ordinary, dot, empty, or odd in every way a client or an attacker might send. */
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('a.md', 'dir', 'b.md', 'notes', 'new.md', '日本語', 'versions') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '',
      '...',
      '\u0000',
      'e\u0301.md', // é as e and a combining accent: not the same name as é
      '\u00e9.md',
      '\u202etxt.md', // right-to-left override
      '🙂',
      '\ud800',
      'a b',
      'a%2Fb',
      '%2e%2e',
      'a\\..\\b',
      '?',
      '#',
      'CON',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.nat({ max: 300 }).map((n) => 'x'.repeat(n)) },
)
const segments = fc.array(segment, { minLength: 1, maxLength: 4 })
/** A path as a URL names it: each segment encoded (mostly), raw, or encoded twice. */
const urlPath = fc.tuple(segments, fc.constantFrom('encoded', 'encoded', 'encoded', 'raw', 'twice')).map(([parts, how]) =>
  parts
    .map((part) => {
      if (how === 'raw') return part.replaceAll('\u0000', '%00')
      const once = encodeURIComponent(part.replace(/\ud800/g, '\ufffd'))
      return how === 'twice' ? encodeURIComponent(once) : once
    })
    .join('/'),
)
/** A path as a body names it: mostly under /memories, else anywhere. */
const fullPath = fc.oneof(
  { weight: 4, arbitrary: segments.map((parts) => `/memories/${parts.join('/')}`) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('/memories', '/memories/', '/etc/passwd', 'memories/a.md', '/Memories/a.md', '//memories/a.md'),
      fc.string({ maxLength: 20 }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
)
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('tea', 'alpha', '\n', '', 'x'.repeat(102_401)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
)
/** Mostly no If-Match; else a version (current or not), *, or none at all. */
const ifMatch = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.oneof(fc.constantFrom('"1"', '1', '*', 'W/"2"', '"0"', 'abc', '3, x', '"99"'), fc.string({ maxLength: 6 })),
  },
)
/** Paths the store holds (so edits apply), or any. */
const held = fc.constantFrom('a.md', 'dir/b.md', 'dir', encodeURIComponent('日本語'))
const anyPath = fc.oneof({ weight: 1, arbitrary: held }, { weight: 2, arbitrary: urlPath })
const heldText = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('tea', 'alpha', 'beta\n', 'ノート') },
  { weight: 1, arbitrary: text },
)

/** One request on the memory routes. */
const request = fc.oneof(
  fc.record({ method: fc.constant('PUT'), path: anyPath, body: fc.record({ content: text }), ifMatch }),
  fc.record({
    method: fc.constant('PUT'),
    path: urlPath,
    body: fc.record({ content: text, mode: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: [] }),
    ifMatch,
  }),
  fc.record({
    method: fc.constant('PATCH'),
    path: anyPath,
    body: fc.oneof(
      fc.record({ replace: fc.record({ old: heldText, new: text }) }),
      fc.record({ replace: fc.record({ old: text, new: text }, { requiredKeys: [] }) }),
      fc.record({ insert: fc.record({ line: fc.oneof(fc.integer({ min: -2, max: 6 }), text), text }, { requiredKeys: [] }) }),
      fc.record(
        { replace: fc.record({ old: text, new: text }), insert: fc.record({ line: fc.nat(3), text }) },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    ifMatch,
  }),
  fc.record({ method: fc.constant('DELETE'), path: anyPath, ifMatch }),
  fc.record({
    method: fc.constant('POST'),
    path: fc.constant('rename'),
    body: fc.oneof(
      { weight: 2, arbitrary: fc.record({ from: held.map((p) => `/memories/${decodeURIComponent(p)}`), to: fullPath }) },
      { weight: 1, arbitrary: fc.record({ from: fullPath, to: fullPath }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    ),
    ifMatch,
  }),
  fc.record({
    method: fc.constant('GET'),
    path: fc.oneof(
      urlPath,
      urlPath.chain((p) =>
        fc
          .oneof(fc.integer({ min: -1, max: 5 }), fc.string({ maxLength: 5 }))
          .map((v) => `${p}?version=${encodeURIComponent(v)}`),
      ),
      urlPath.map((p) => `${p}/versions`),
      fullPath.map((p) => `?prefix=${encodeURIComponent(String(p))}`),
    ),
  }),
)

describe('a PATCH the fuzz found unnamed', () => {
  it('names the field of a replace or insert that is wrong, not only "body" (it said "body: Invalid input")', async () => {
    for (const [edit, named] of [
      [{ replace: { old: 'tea' } }, /^replace\.new: /],
      [{ replace: { old: 3, new: 'x' } }, /^replace\.old: /],
      [{ insert: { line: -1, text: 'x' } }, /^insert\.line: /],
      [{ insert: { line: 0 } }, /^insert\.text: /],
      [{ replace: { old: 'tea', new: 'x', all: true } }, /^replace\.all: unknown field/],
      [{}, /^body: give exactly one of replace and insert/],
      [{ replace: { old: 'tea', new: 'x' }, insert: { line: 0, text: 'x' } }, /^body: give exactly one of replace and insert/],
    ] as const) {
      const answer = await call('PATCH', '/v1/memories/dir/b.md', { user: AS, body: edit })
      expect(answer.status, answer.text).toBe(400)
      expect(answer.body.error.message, JSON.stringify(edit)).toMatch(named)
    }
    expect((await call('GET', '/v1/memories/dir/b.md', { user: AS })).body).toMatchObject({ content: 'tea and tea', version: 1 })
  })
})

/** Every version of every memory file the user has, as the export holds them (its memory lines). */
const everyVersion = async () =>
  (await call('GET', '/v1/export', { user: AS })).text.split('\n').filter((line) => line.startsWith('{"type":"memory"'))

describe('the memory routes, fuzzed', () => {
  it('never answer 5xx; a 4xx names its field and writes nothing; a write reads back as written', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (request) => {
        const sent = request as { method: string; path: string; body?: unknown; ifMatch?: string | null }
        const before = await everyVersion()
        const headers: Record<string, string> = sent.ifMatch == null ? {} : { 'If-Match': sent.ifMatch }
        const path = sent.path.startsWith('?') ? `/v1/memories${sent.path}` : `/v1/memories/${sent.path}`
        const result: Call = await call(sent.method, path, { user: AS, body: sent.body, headers })
        const what = `${sent.method} ${path.slice(0, 200)} ${JSON.stringify(sent.body ?? null).slice(0, 200)} ${JSON.stringify(headers)} → ${result.status} ${result.text.slice(0, 300)}`
        expect(result.status, what).toBeLessThan(500)
        if (result.status >= 400) {
          expect(Object.keys(result.body ?? {}), what).toEqual(['error'])
          expect(Object.keys(result.body.error).sort(), what).toEqual(['code', 'message'])
          if (result.body.error.code === 'invalid_request')
            // A field's path first; an unknown field is named by its key, whatever it is.
            expect(result.body.error.message, what).toMatch(
              /^(([A-Za-z_]+(\[\d+\]|\.[A-Za-z_]+)*|If-Match): |[^;]*: unknown field)/,
            )
          expect(await everyVersion(), what).toEqual(before)
          return
        }
        if (sent.method === 'GET') return
        // A write names files by paths the contract allows, each at the version it answered.
        const files = result.body.files ?? [result.body]
        for (const file of files as { path: string; version: number; deleted: boolean }[]) {
          expect(pathProblem(file.path), what).toBeNull()
          const read = await call(
            'GET',
            `/v1/memories/${file.path.slice('/memories/'.length).split('/').map(encodeURIComponent).join('/')}?version=${file.version}`,
            {
              user: AS,
            },
          )
          if (file.deleted) expect(read.status, what).toBe(404)
          else {
            expect(read.status, what).toBe(200)
            expect(read.body.path, what).toBe(file.path)
            if (sent.method === 'PUT') expect(read.body.content, what).toBe((sent.body as { content: string }).content)
          }
        }
      }),
      { numRuns: 200, seed: 5 },
    )
  })
})

describe('the memory tool on /turns, fuzzed', () => {
  it('runs any command the model sends without a 5xx; a command refused (an "Error: …" result) writes nothing', async () => {
    const command = fc.oneof({ weight: 2, arbitrary: validMemoryCommand }, { weight: 1, arbitrary: hostileMemoryCommand })
    await fc.assert(
      fc.asyncProperty(command, async (sent) => {
        const before = await everyVersion()
        // The fake `memory` model sends the script's commands as its memory calls (test/upstream/memory-script.ts).
        const content = `MEMORY:${JSON.stringify([[sent]])}`
        const result = await turn(newSessionId('fuzz-memory-tool'), { model: 'memory', memory: true, content }, AS)
        const what = `${JSON.stringify(sent).slice(0, 300)} → ${result.status} ${result.text.slice(0, 300)}`
        expect(result.status, what).toBe(200)
        const results = result.body.events.flatMap((event: any) =>
          (event.message.toolResponses ?? []).filter((response: { name: string }) => response.name === 'memory'),
        )
        expect(results, what).toHaveLength(1)
        if (String(results[0].data).startsWith('Error')) expect(await everyVersion(), what).toEqual(before)
      }),
      { numRuns: 60, seed: 6 },
    )
  })
})
