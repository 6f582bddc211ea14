import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { app } from '../../src/http/app'
import { memoryStub } from '../../src/object/address'
import { append, type Call, call, expectError, newSessionId, tokenFor, user } from '../helpers'

/** Each test a user of its own: a memory store is per user. */
let users = 0
const newUser = () => `memory-user-${Date.now().toString(36)}-${++users}`

/** The test project's MEMORY_MAX_FILES (vitest.config.ts): small, so the limit is reached in a test. */
const MAX_FILES = Number(env.MEMORY_MAX_FILES)

const put = (as: string, path: string, content: string, headers: Record<string, string> = {}) =>
  call('PUT', `/v1/memories/${path}`, { user: as, body: { content }, headers })
const patch = (as: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  call('PATCH', `/v1/memories/${path}`, { user: as, body, headers })
const read = (as: string, path: string) => call('GET', `/v1/memories/${path}`, { user: as })
const list = async (as: string, prefix?: string) =>
  (await call('GET', `/v1/memories${prefix ? `?prefix=${encodeURIComponent(prefix)}` : ''}`, { user: as })).body.files as {
    path: string
    size: number
    version: number
  }[]
const versions = async (as: string, path: string) =>
  (await call('GET', `/v1/memories/${path}/versions`, { user: as })).body.versions as { version: number; deleted: boolean }[]

/** The answer succeeded with this status; its body. */
function ok(answer: Call, status = 200) {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status} ${answer.text}`)
  return answer.body
}

describe('memory files over REST', () => {
  it('are created, read, replaced and listed, each write a new version answered with its ETag', async () => {
    const as = newUser()
    const created = await put(as, 'notes/prefs.md', 'likes tea\n')
    expect(ok(created)).toMatchObject({ path: '/memories/notes/prefs.md', version: 1, size: 10, deleted: false })
    expect(created.headers.get('ETag')).toBe('"1"')
    const replaced = await put(as, 'notes/prefs.md', 'likes green tea ☕\n')
    expect(ok(replaced)).toMatchObject({ version: 2, size: 20 })
    expect(replaced.headers.get('ETag')).toBe('"2"')
    const now = await read(as, 'notes/prefs.md')
    expect(ok(now)).toEqual({
      path: '/memories/notes/prefs.md',
      content: 'likes green tea ☕\n',
      version: 2,
      updatedAt: expect.any(String),
    })
    expect(now.headers.get('ETag')).toBe('"2"')
    expect(ok(await call('GET', '/v1/memories/notes/prefs.md?version=1', { user: as })).content).toBe('likes tea\n')
    ok(await put(as, 'todo.md', '- call Bob'))
    expect(await list(as)).toEqual([
      { path: '/memories/notes/prefs.md', size: 20, version: 2, updatedAt: expect.any(String) },
      { path: '/memories/todo.md', size: 10, version: 1, updatedAt: expect.any(String) },
    ])
    expect((await list(as, '/memories/notes/')).map((file) => file.path)).toEqual(['/memories/notes/prefs.md'])
    expect((await list(as, '/memories/t')).map((file) => file.path)).toEqual(['/memories/todo.md'])
  })

  it('keep every version; a delete is one too, and the file can be written again after it', async () => {
    const as = newUser()
    ok(await put(as, 'a.md', 'one'))
    ok(await put(as, 'a.md', 'two'))
    const deleted = await call('DELETE', '/v1/memories/a.md', { user: as })
    expect(ok(deleted)).toMatchObject({ path: '/memories/a.md', version: 3, deleted: true, size: 0 })
    expect(deleted.headers.get('ETag')).toBe('"3"')
    expectError(await read(as, 'a.md'), 404, 'not_found')
    expect(await list(as)).toEqual([])
    expect(ok(await call('GET', '/v1/memories/a.md?version=2', { user: as })).content).toBe('two')
    expectError(await call('GET', '/v1/memories/a.md?version=3', { user: as }), 404, 'not_found')
    expectError(await call('GET', '/v1/memories/a.md?version=9', { user: as }), 404, 'not_found')
    expect(ok(await put(as, 'a.md', 'three')).version).toBe(4)
    expect(await versions(as, 'a.md')).toEqual([
      { version: 1, size: 3, deleted: false, createdAt: expect.any(String) },
      { version: 2, size: 3, deleted: false, createdAt: expect.any(String) },
      { version: 3, size: 0, deleted: true, createdAt: expect.any(String) },
      { version: 4, size: 5, deleted: false, createdAt: expect.any(String) },
    ])
    expectError(await call('GET', '/v1/memories/never.md/versions', { user: as }), 404, 'not_found')
  })

  it('PATCH replaces text that occurs exactly once, else a 400 naming the count, nothing written', async () => {
    const as = newUser()
    ok(await put(as, 'p.md', 'tea and tea and coffee'))
    expect(ok(await patch(as, 'p.md', { replace: { old: 'coffee', new: 'water' } })).version).toBe(2)
    const twice = await patch(as, 'p.md', { replace: { old: 'tea', new: 'milk' } })
    expectError(twice, 400, 'invalid_request')
    expect(twice.body.error.message).toMatch(/^replace\.old: occurs 2 times/)
    const never = await patch(as, 'p.md', { replace: { old: 'juice', new: 'milk' } })
    expect(never.body.error.message).toMatch(/^replace\.old: occurs 0 times/)
    expectError(await patch(as, 'p.md', { replace: { old: '', new: 'x' } }), 400, 'invalid_request')
    expect(ok(await read(as, 'p.md'))).toMatchObject({ content: 'tea and tea and water', version: 2 })
    expectError(await patch(as, 'missing.md', { replace: { old: 'a', new: 'b' } }), 404, 'not_found')
  })

  it('PATCH inserts after a line as the tool does (0 at the top), refusing a line past the end', async () => {
    const as = newUser()
    ok(await put(as, 'list.md', 'a\nc'))
    ok(await patch(as, 'list.md', { insert: { line: 1, text: 'b\n' } }))
    ok(await patch(as, 'list.md', { insert: { line: 0, text: 'top' } }))
    expect(ok(await read(as, 'list.md')).content).toBe('top\na\nb\nc')
    const past = await patch(as, 'list.md', { insert: { line: 5, text: 'x' } })
    expectError(past, 400, 'invalid_request')
    expect(past.body.error.message).toContain('insert.line: must be within [0, 4]')
    for (const body of [
      { insert: { line: -1, text: 'x' } },
      { replace: { old: 'a', new: 'b' }, insert: { line: 0, text: 'x' } },
      {},
    ])
      expectError(await patch(as, 'list.md', body), 400, 'invalid_request')
    expect(ok(await read(as, 'list.md')).version).toBe(3)
  })

  it('refuse a stale If-Match with 412, writing nothing; a current one (or *) goes through', async () => {
    const as = newUser()
    ok(await put(as, 'f.md', 'v1'))
    ok(await put(as, 'f.md', 'v2'))
    const stale = await put(as, 'f.md', 'lost', { 'If-Match': '"1"' })
    expectError(stale, 412, 'precondition_failed')
    expect(stale.body.error.message).toBe('If-Match: /memories/f.md is at version 2, not 1')
    expectError(await patch(as, 'f.md', { replace: { old: 'v2', new: 'x' } }, { 'If-Match': '1' }), 412, 'precondition_failed')
    expectError(await call('DELETE', '/v1/memories/f.md', { user: as, headers: { 'If-Match': '1' } }), 412, 'precondition_failed')
    expectError(await put(as, 'new.md', 'x', { 'If-Match': '1' }), 412, 'precondition_failed')
    expectError(await put(as, 'new.md', 'x', { 'If-Match': '*' }), 412, 'precondition_failed')
    expect(ok(await read(as, 'f.md'))).toMatchObject({ content: 'v2', version: 2 })
    expect(await list(as)).toHaveLength(1)
    expect(ok(await put(as, 'f.md', 'v3', { 'If-Match': '"2"' })).version).toBe(3)
    expect(ok(await put(as, 'f.md', 'v4', { 'If-Match': '*' })).version).toBe(4)
    expect(ok(await put(as, 'f.md', 'v5', { 'If-Match': 'W/"4"' })).version).toBe(5)
    for (const header of ['abc', '"0"', '3, x'])
      expectError(await put(as, 'f.md', 'x', { 'If-Match': header }), 400, 'invalid_request')
  })

  it('rename a file or a directory; the old path keeps its history, ending in a delete naming where it went', async () => {
    const as = newUser()
    ok(await put(as, 'draft.md', 'text'))
    const moved = await call('POST', '/v1/memories/rename', {
      user: as,
      body: { from: '/memories/draft.md', to: '/memories/done/final.md' },
    })
    expect(ok(moved)).toMatchObject({ path: '/memories/done/final.md', version: 1, deleted: false })
    expect(moved.headers.get('ETag')).toBe('"1"')
    expect(ok(await read(as, 'done/final.md')).content).toBe('text')
    expect(await versions(as, 'draft.md')).toEqual([
      { version: 1, size: 4, deleted: false, createdAt: expect.any(String) },
      { version: 2, size: 0, deleted: true, createdAt: expect.any(String), movedTo: '/memories/done/final.md' },
    ])
    expect((await versions(as, 'done/final.md'))[0]).toMatchObject({ version: 1, movedFrom: '/memories/draft.md' })
    ok(await put(as, 'done/other.md', 'more'))
    const dir = await call('POST', '/v1/memories/rename', {
      user: as,
      body: { from: '/memories/done', to: '/memories/archive/2026' },
    })
    expect(ok(dir)).toEqual({
      path: '/memories/archive/2026',
      files: [
        expect.objectContaining({ path: '/memories/archive/2026/final.md', version: 1 }),
        expect.objectContaining({ path: '/memories/archive/2026/other.md', version: 1 }),
      ],
    })
    expect((await list(as)).map((file) => file.path)).toEqual([
      '/memories/archive/2026/final.md',
      '/memories/archive/2026/other.md',
    ])
    const rename = (from: string, to: string) => call('POST', '/v1/memories/rename', { user: as, body: { from, to } })
    expectError(await rename('/memories/nope.md', '/memories/x.md'), 404, 'not_found')
    ok(await put(as, 'taken.md', 'x'))
    expectError(await rename('/memories/taken.md', '/memories/archive/2026/final.md'), 409, 'path_conflict')
    expectError(await rename('/memories/archive', '/memories/archive/inner'), 400, 'invalid_request')
    expectError(await rename('/memories/archive', '/memories/taken.md/inner'), 409, 'path_conflict')
    expectError(await rename('/memories/../etc', '/memories/x'), 400, 'invalid_request')
    expect(await list(as)).toHaveLength(3)
  })

  it('delete a directory with every file in it, each a delete version', async () => {
    const as = newUser()
    ok(await put(as, 'd/a.md', 'a'))
    ok(await put(as, 'd/e/b.md', 'b'))
    ok(await put(as, 'keep.md', 'k'))
    const removed = await call('DELETE', '/v1/memories/d', { user: as })
    expect(ok(removed)).toEqual({
      path: '/memories/d',
      files: [
        expect.objectContaining({ path: '/memories/d/a.md', version: 2, deleted: true }),
        expect.objectContaining({ path: '/memories/d/e/b.md', version: 2, deleted: true }),
      ],
    })
    expect(removed.headers.get('ETag')).toBeNull()
    expect((await list(as)).map((file) => file.path)).toEqual(['/memories/keep.md'])
    expectError(await call('DELETE', '/v1/memories/d', { user: as }), 404, 'not_found')
  })

  it('are open to a web app on an allowed origin: every method of a nested path, If-Match sent, ETag read', async () => {
    const origin = 'https://notes.example.com'
    const preflight = await app.request(
      '/v1/memories/notes/a.md',
      {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'if-match' },
      },
      { ...env, CORS_ORIGINS: origin },
    )
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('Access-Control-Allow-Methods')!.split(', ').sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT'])
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toContain('if-match')
    const written = await app.request(
      '/v1/memories/notes/a.md',
      {
        method: 'PUT',
        headers: { Origin: origin, Authorization: `Bearer ${await tokenFor(newUser())}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'x' }),
      },
      { ...env, CORS_ORIGINS: origin },
    )
    expect(written.status).toBe(200)
    expect(written.headers.get('Access-Control-Expose-Headers')!.split(', ')).toContain('ETag')
  })

  it('a file named versions is read with its last slash encoded', async () => {
    const as = newUser()
    ok(await put(as, 'log/versions', 'v'))
    expect(ok(await call('GET', '/v1/memories/log%2Fversions', { user: as })).content).toBe('v')
    expect(await versions(as, 'log/versions')).toHaveLength(1)
  })
})

describe('memory bad input', () => {
  it('refuses paths outside /memories, .., ., empty segments, NUL and over 256 characters: 400 naming the path, nothing written', async () => {
    const as = newUser()
    // Dot segments come with their slashes encoded: a URL's own `..` is resolved before it is sent.
    const bad = ['..%2Fetc%2Fpasswd', 'a%2F..%2Fb.md', 'a%2F.%2Fb.md', 'a//b.md', 'a/', '%00x', 'x'.repeat(247)]
    for (const path of bad) {
      const answer = await put(as, path, 'x')
      expectError(answer, 400, 'invalid_request')
      expect(answer.body.error.message, path).toMatch(/^path: /)
    }
    expectError(await call('GET', '/v1/memories?prefix=/etc', { user: as }), 400, 'invalid_request')
    expect(await list(as)).toEqual([])
  })

  it('refuses a file over 100 KiB (413 naming content) and a write past MEMORY_MAX_FILES, nothing written', async () => {
    const as = newUser()
    const big = await put(as, 'big.md', 'é'.repeat(51_201))
    expectError(big, 413, 'payload_too_large')
    expect(big.body.error.message).toBe(
      'content: the file would be 102402 bytes; a memory file holds at most 102400 bytes (100 KiB)',
    )
    ok(await put(as, 'exact.md', 'x'.repeat(100 * 1024)))
    const grown = await patch(as, 'exact.md', { insert: { line: 0, text: 'x' } })
    expectError(grown, 413, 'payload_too_large')
    expect(grown.body.error.message).toMatch(/^insert\.text: /)
    for (let i = 1; i < MAX_FILES; i++) ok(await put(as, `many/${i}.md`, String(i)))
    const over = await put(as, 'many/last.md', 'x')
    expectError(over, 413, 'payload_too_large')
    expect(over.body.error.message).toContain('MEMORY_MAX_FILES')
    expect(await list(as)).toHaveLength(MAX_FILES)
    // Replacing a file is no new file; after a delete there is room again.
    ok(await put(as, 'many/1.md', 'again'))
    ok(await call('DELETE', '/v1/memories/many/1.md', { user: as }))
    ok(await put(as, 'many/last.md', 'x'))
  })

  it('refuses a file where a directory is, and a file inside a file: 409 path_conflict', async () => {
    const as = newUser()
    ok(await put(as, 'dir/a.md', 'a'))
    expectError(await put(as, 'dir', 'x'), 409, 'path_conflict')
    expectError(await put(as, 'dir/a.md/b.md', 'x'), 409, 'path_conflict')
    expect((await list(as)).map((file) => file.path)).toEqual(['/memories/dir/a.md'])
  })

  it('refuses unknown fields and a body that is not the schema, naming the field', async () => {
    const as = newUser()
    const extra = await call('PUT', '/v1/memories/a.md', { user: as, body: { content: 'x', mode: 'append' } })
    expectError(extra, 400, 'invalid_request')
    expect(extra.body.error.message).toContain('mode')
    expectError(await call('PUT', '/v1/memories/a.md', { user: as, body: { content: 3 } }), 400, 'invalid_request')
    expectError(await call('GET', '/v1/memories/a.md?version=0', { user: as }), 400, 'invalid_request')
    expect(await list(as)).toEqual([])
  })

  it('never shows one user’s memory to another', async () => {
    const [alice, bob] = [newUser(), newUser()]
    ok(await put(alice, 'secret.md', 'the plan'))
    expect(await list(bob)).toEqual([])
    expectError(await read(bob, 'secret.md'), 404, 'not_found')
    expectError(await call('GET', '/v1/memories/secret.md/versions', { user: bob }), 404, 'not_found')
    expectError(await call('DELETE', '/v1/memories/secret.md', { user: bob }), 404, 'not_found')
    const renamed = await call('POST', '/v1/memories/rename', {
      user: bob,
      body: { from: '/memories/secret.md', to: '/memories/mine.md' },
    })
    expectError(renamed, 404, 'not_found')
    // Bob's write to the same path is his own file.
    expect(ok(await put(bob, 'secret.md', 'bob')).version).toBe(1)
    expect(ok(await read(alice, 'secret.md'))).toMatchObject({ content: 'the plan', version: 1 })
  })
})

describe('concurrent writers to one file', () => {
  it('lose no version: twelve writes at once are twelve versions, each content kept', async () => {
    const as = newUser()
    const writes = await Promise.all(Array.from({ length: 12 }, (_, i) => put(as, 'shared.md', `writer ${i}`)))
    expect(writes.map((answer) => ok(answer).version).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1))
    const kept = await Promise.all(
      writes.map(
        async (answer) => ok(await call('GET', `/v1/memories/shared.md?version=${answer.body.version}`, { user: as })).content,
      ),
    )
    expect(kept.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `writer ${i}`).sort())
  })

  it('refuse every stale writer: of eight writes guarded by the same version, one lands and seven get 412', async () => {
    const as = newUser()
    ok(await put(as, 'guarded.md', 'base'))
    const writes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(as, 'guarded.md', `writer ${i}`, { 'If-Match': '"1"' })),
    )
    const landed = writes.filter((answer) => answer.status === 200)
    expect(landed).toHaveLength(1)
    for (const refused of writes.filter((answer) => answer.status !== 200)) expectError(refused, 412, 'precondition_failed')
    expect(ok(await read(as, 'guarded.md'))).toMatchObject({ version: 2, content: `writer ${writes.indexOf(landed[0]!)}` })
  })

  it('apply edits to the version they read: ten inserts at once each land, none overwritten', async () => {
    const as = newUser()
    ok(await put(as, 'lines.md', 'start'))
    await Promise.all(Array.from({ length: 10 }, (_, i) => patch(as, 'lines.md', { insert: { line: 1, text: `line ${i}` } })))
    const lines = ok(await read(as, 'lines.md')).content.split('\n')
    expect(lines[0]).toBe('start')
    expect(lines.slice(1).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i}`).sort())
    expect(await versions(as, 'lines.md')).toHaveLength(11)
  })
})

describe('memory in a user’s export and erasure', () => {
  it('GET /v1/export ends with every version of every memory file, deletes and renames included', async () => {
    const as = newUser()
    await append(newSessionId('mem-export'), [user('hello')], as)
    ok(await put(as, 'b.md', 'one'))
    ok(await put(as, 'b.md', 'two'))
    ok(await call('POST', '/v1/memories/rename', { user: as, body: { from: '/memories/b.md', to: '/memories/a.md' } }))
    const exported = await call('GET', '/v1/export', { user: as })
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ type: 'session' })
    expect(lines.filter((line) => line.type === 'memory')).toEqual([
      {
        type: 'memory',
        path: '/memories/a.md',
        version: 1,
        deleted: false,
        createdAt: expect.any(String),
        content: 'two',
        movedFrom: '/memories/b.md',
      },
      { type: 'memory', path: '/memories/b.md', version: 1, deleted: false, createdAt: expect.any(String), content: 'one' },
      { type: 'memory', path: '/memories/b.md', version: 2, deleted: false, createdAt: expect.any(String), content: 'two' },
      {
        type: 'memory',
        path: '/memories/b.md',
        version: 3,
        deleted: true,
        createdAt: expect.any(String),
        content: null,
        movedTo: '/memories/a.md',
      },
    ])
    expect(lines.slice(-4).every((line) => line.type === 'memory')).toBe(true)
    // A session import reads no memory lines: the first one is a 400 naming its line.
    const imported = await call('POST', `/v1/sessions/${newSessionId('mem-import')}/import`, {
      user: as,
      body: exported.text,
      headers: { 'Content-Type': 'application/x-ndjson' },
    })
    expectError(imported, 400, 'invalid_request')
    expect(imported.body.error.message).toMatch(new RegExp(`^line ${lines.length - 3}: `))
  })

  it('an export holds large memories whole, over several pages of the store', async () => {
    const as = newUser()
    const big = 'x'.repeat(100 * 1024)
    for (let i = 0; i < 12; i++)
      ok(await put(as, `big/${String(i).padStart(2, '0')}.md`, `${String.fromCharCode(65 + i)}${big.slice(1)}`))
    for (let v = 0; v < 250; v++) ok(await put(as, 'small.md', `v${v}`))
    const memory = (await call('GET', '/v1/export', { user: as })).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(memory).toHaveLength(262)
    expect(memory.slice(0, 12).map((line) => line.content[0])).toEqual(
      Array.from({ length: 12 }, (_, i) => String.fromCharCode(65 + i)),
    )
    expect(memory.slice(0, 12).every((line) => line.content.length === 100 * 1024)).toBe(true)
    expect(memory.slice(12).map((line) => line.content)).toEqual(Array.from({ length: 250 }, (_, v) => `v${v}`))
  })

  it('erase-all erases every file and version at once; the store starts again from nothing', async () => {
    const as = newUser()
    ok(await put(as, 'notes.md', 'one'))
    ok(await put(as, 'notes.md', 'two'))
    const erased = await call('DELETE', '/v1/sessions', { user: as, body: { all: true } })
    expect(erased.status).toBe(202)
    expect(await list(as)).toEqual([])
    expectError(await call('GET', '/v1/memories/notes.md/versions', { user: as }), 404, 'not_found')
    expect((await call('GET', '/v1/export', { user: as })).text).toBe('')
    expect(ok(await put(as, 'notes.md', 'new')).version).toBe(1)
  })

  it('reading a store never written leaves it without storage', async () => {
    const as = newUser()
    expect(await list(as)).toEqual([])
    expectError(await read(as, 'a.md'), 404, 'not_found')
    await call('GET', '/v1/export', { user: as })
    const tables = await runInDurableObject(
      memoryStub(env, as),
      (_, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").one().n,
    )
    expect(tables).toBe(0)
  })
})
