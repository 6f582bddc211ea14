/** The memory tool run by the service: on /turns (`memory: true`) and through each door, against the user's store. */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { MEMORY_INSTRUCTION } from '../../src/memory'
import { memoryStub } from '../../src/object/address'
import { call, expectError, newSessionId, newTag, turn, upstreamRequests, wholeLog } from '../helpers'

let users = 0
const newUser = () => `memory-tool-${Date.now().toString(36)}-${++users}`

/** A user message the fake models run as a script of memory commands: one list of commands a round. */
const script = (...rounds: unknown[]) => `Please remember. MEMORY:${JSON.stringify(rounds)}`

const create = (path: string, file_text: string) => ({ command: 'create', path, file_text })
const view = (path: string, view_range?: [number, number]) => ({ command: 'view', path, ...(view_range ? { view_range } : {}) })

/** The results of the memory calls a turn's events hold, in order. */
const memoryResults = (events: any[]) =>
  events.flatMap((event) => (event.message?.toolResponses ?? []).filter((r: { name: string }) => r.name === 'memory'))

/** Whether the user's memory object holds any storage at all. */
const memoryTables = (as: string) =>
  runInDurableObject(
    memoryStub(env, as),
    (_, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").one().n,
  )

describe('the memory tool on /turns (memory: true)', () => {
  it('runs the model’s commands against the user’s store, stores them with the turn, answers from them', async () => {
    const as = newUser()
    const id = newSessionId('memtool')
    const tag = newTag()
    const content = script(
      [view('/memories')],
      [create('/memories/prefs.md', 'likes tea\nlives in Lyon\n')],
      [view('/memories/prefs.md')],
    )
    const result = await turn(id, { content, model: `memory#${tag}`, memory: true }, as)
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({ status: 'completed', toolCalls: [] })
    const roles = result.body.events.map((event: any) => event.message.role)
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'])
    const calls = result.body.events.flatMap((event: any) => event.message.toolCalls ?? [])
    expect(calls.map((c: any) => c.name)).toEqual(['memory', 'memory', 'memory'])
    for (const c of calls) expect(c.id).toMatch(/^mem_[0-9a-f]{32}$/)
    expect(memoryResults(result.body.events).map((r: any) => r.data)).toEqual([
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4K\t/memories",
      'File created successfully at: /memories/prefs.md',
      "Here's the content of /memories/prefs.md with line numbers:\n     1\tlikes tea\n     2\tlives in Lyon\n     3\t",
    ])
    expect(result.body.reply.message.content).toContain('File created successfully at: /memories/prefs.md')
    // The file is in the user's store, as the REST routes read it.
    const file = await call('GET', '/v1/memories/prefs.md', { user: as })
    expect(file.body).toMatchObject({ content: 'likes tea\nlives in Lyon\n', version: 1 })
    // Offered as a function tool named memory for three rounds (then once more without it), with the
    // instruction once in each call's system prompt.
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(4)
    expect((sent[3]!.body as any).tools).toBeUndefined()
    for (const request of sent.slice(0, 3)) {
      const body = request.body as any
      expect(body.tools.map((tool: any) => tool.function.name)).toEqual(['memory'])
      expect(body.tools[0].function.parameters.properties.command.enum).toEqual([
        'view',
        'create',
        'str_replace',
        'insert',
        'delete',
        'rename',
      ])
    }
    for (const { body } of sent as any[]) {
      expect(body.messages[0]).toEqual({ role: 'system', content: MEMORY_INSTRUCTION })
      expect(body.messages.filter((m: any) => (m.content ?? '').includes('ALWAYS VIEW YOUR MEMORY'))).toHaveLength(1)
    }
    // The log holds the turn as answered; the memory calls are never the client's to answer.
    expect((await wholeLog(id, as)).map((event) => event.id)).toEqual(result.body.events.map((event: any) => event.id))
    const context = await call('GET', `/v1/sessions/${id}/context`, { user: as })
    expect(context.body.pendingToolCalls).toEqual([])
  })

  it('puts the instruction after the request’s own system prompt', async () => {
    const tag = newTag()
    const id = newSessionId('memtool')
    await turn(
      id,
      { content: script([view('/memories')]), system: 'You are terse.', model: `memory#${tag}`, memory: true },
      newUser(),
    )
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).messages[0]).toEqual({ role: 'system', content: `You are terse.\n\n${MEMORY_INSTRUCTION}` })
  })

  it('never reads the user’s memory on a turn that does not offer the tool', async () => {
    const as = newUser()
    const tag = newTag()
    const result = await turn(newSessionId('memtool'), { content: script([view('/memories')]), model: `memory#${tag}` }, as)
    expect(result.status).toBe(200)
    expect(result.body.reply.message.content).toMatch(/^Echo: /)
    const [sent] = await upstreamRequests(tag)
    expect((sent!.body as any).tools).toBeUndefined()
    expect(JSON.stringify(sent!.body)).not.toContain('MEMORY DIRECTORY')
    expect(await memoryTables(as)).toBe(0)
  })

  it('runs at most 3 rounds a request, then calls the model once more without the tool; a call it still makes is stored, not run', async () => {
    const as = newUser()
    const tag = newTag()
    const rounds = [1, 2, 3, 4].map((n) => [create(`/memories/r${n}.md`, `round ${n}`)])
    const result = await turn(newSessionId('memtool'), { content: script(...rounds), model: `memory#${tag}`, memory: true }, as)
    expect(result.status, result.text).toBe(200)
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(4)
    expect(sent.map((request) => ((request.body as any).tools ?? []).length)).toEqual([1, 1, 1, 0])
    // The fourth reply's call is stored with it, not run, and not handed to the client.
    expect(result.body).toMatchObject({ status: 'completed', toolCalls: [] })
    expect(result.body.reply.message.toolCalls).toEqual([
      expect.objectContaining({ name: 'memory', id: expect.stringMatching(/^mem_/) }),
    ])
    expect((await call('GET', '/v1/memories', { user: as })).body.files.map((f: any) => f.path)).toEqual([
      '/memories/r1.md',
      '/memories/r2.md',
      '/memories/r3.md',
    ])
  })

  it('answers bad commands with the handler’s error text, writing nothing', async () => {
    const as = newUser()
    await call('PUT', '/v1/memories/notes.md', { user: as, body: { content: 'tea\ntea\ncoffee' } })
    await call('PUT', '/v1/memories/full.md', { user: as, body: { content: 'x'.repeat(100 * 1024) } })
    const commands = [
      { command: 'str_replace', path: '/memories/notes.md', old_str: 'tea', new_str: 'milk' },
      { command: 'str_replace', path: '/memories/notes.md', old_str: 'juice', new_str: 'milk' },
      { command: 'create', path: '/memories/../secrets.md', file_text: 'x' },
      { command: 'view', path: '/etc/passwd' },
      create('/memories/notes.md', 'again'),
      { command: 'insert', path: '/memories/full.md', insert_line: 0, insert_text: 'one more line' },
      { command: 'insert', path: '/memories/notes.md', insert_line: 9, insert_text: 'x' },
      { command: 'delete', path: '/memories' },
      { command: 'rename', old_path: '/memories/nope.md', new_path: '/memories/other.md' },
      { command: 'view', path: '/memories/missing.md' },
      { command: 'forget', path: '/memories/notes.md' },
    ]
    const result = await turn(newSessionId('memtool'), { content: script(commands), model: 'memory', memory: true }, as)
    expect(result.status, result.text).toBe(200)
    expect(memoryResults(result.body.events).map((r: any) => r.data)).toEqual([
      'Error: No replacement was performed. Multiple occurrences of old_str `tea` in lines: 1, 2. Please ensure it is unique',
      'Error: No replacement was performed, old_str `juice` did not appear verbatim in /memories/notes.md.',
      'Error: Path /memories/../secrets.md would escape /memories directory',
      'Error: Path must start with /memories, got: /etc/passwd',
      'Error: File /memories/notes.md already exists',
      'Error: File /memories/full.md would be 102414 bytes: a memory file holds at most 102400 bytes (100 KiB)',
      'Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 3]',
      'Error: Cannot delete the /memories directory itself',
      'Error: The path /memories/nope.md does not exist',
      'Error: The path /memories/missing.md does not exist. Please provide a valid path.',
      'Error: forget not implemented',
    ])
    // Each listed as the tool's error, as a client's error result is.
    const results = result.body.events.find((event: any) => event.message.role === 'tool')
    expect(results.metadata.toolErrors).toHaveLength(11)
    // Nothing written: the files as they were, nothing else made (the rename's destination is in /memories itself).
    for (const path of ['notes.md', 'full.md'])
      expect((await call('GET', `/v1/memories/${path}/versions`, { user: as })).body.versions).toHaveLength(1)
    expect((await call('GET', '/v1/memories', { user: as })).body.files.map((f: any) => f.path)).toEqual([
      '/memories/full.md',
      '/memories/notes.md',
    ])
  })

  it('hands the client its own calls of a reply that also calls the memory tool; the memory call runs and is stored after it', async () => {
    const as = newUser()
    const id = newSessionId('memtool')
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }
    const content = script([create('/memories/a.md', 'x'), { client: 'get_weather' }])
    const result = await turn(id, { content, model: 'memory', memory: true, tools: [weather] }, as)
    expect(result.status, result.text).toBe(200)
    expect(result.body.status).toBe('requires_action')
    expect(result.body.toolCalls).toEqual([expect.objectContaining({ name: 'get_weather', id: 'fake_0_1' })])
    expect(result.body.events.map((event: any) => event.message.role)).toEqual(['user', 'assistant', 'tool'])
    expect(memoryResults(result.body.events).map((r: any) => r.data)).toEqual(['File created successfully at: /memories/a.md'])
    expect((await call('GET', '/v1/memories/a.md', { user: as })).body.content).toBe('x')
    // Only the client's call is pending: its result continues the turn.
    expect((await call('GET', `/v1/sessions/${id}/context`, { user: as })).body.pendingToolCalls).toEqual([
      result.body.toolCalls[0].id,
    ])
    const next = await turn(
      id,
      { toolResults: [{ id: result.body.toolCalls[0].id, data: 'sunny' }], model: 'memory', memory: true },
      as,
    )
    expect(next.status, next.text).toBe(200)
    expect(next.body.status).toBe('completed')
  })

  it('refuses a client tool named memory while memory is on; without it, a tool of that name is the client’s', async () => {
    const mine = { type: 'function', function: { name: 'memory', parameters: { type: 'object' } } }
    const refused = await turn(newSessionId('memtool'), { content: 'hi', memory: true, tools: [mine] }, newUser())
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toContain('tools[0].function.name')
    const as = newUser()
    const result = await turn(newSessionId('memtool'), { content: 'hi', model: 'tools-mem_1', tools: [mine] }, as)
    expect(result.body.status).toBe('requires_action')
    expect(result.body.toolCalls).toEqual([expect.objectContaining({ name: 'memory', id: expect.stringMatching(/^call_/) })])
    expect(await memoryTables(as)).toBe(0)
  })

  it('never shows one user’s memory to another', async () => {
    const [alice, bob] = [newUser(), newUser()]
    await call('PUT', '/v1/memories/secret.md', { user: alice, body: { content: 'the plan' } })
    const seen = await turn(
      newSessionId('memtool'),
      { content: script([view('/memories'), view('/memories/secret.md')]), model: 'memory', memory: true },
      bob,
    )
    expect(memoryResults(seen.body.events).map((r: any) => r.data)).toEqual([
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4K\t/memories",
      'Error: The path /memories/secret.md does not exist. Please provide a valid path.',
    ])
  })

  it('streams no tool_call frame for a memory call', async () => {
    const response = await call('POST', `/v1/sessions/${newSessionId('memtool')}/turns`, {
      user: newUser(),
      body: { content: script([create('/memories/s.md', 's')]), model: 'memory', memory: true, stream: true },
    })
    expect(response.status).toBe(200)
    expect(response.text).not.toContain('event: tool_call')
    expect(response.text).toContain('File created successfully at: /memories/s.md')
  })
})
