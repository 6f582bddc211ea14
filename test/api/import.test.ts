import { describe, expect, it } from 'vitest'
import { call, expectError, newSessionId, wholeLog } from '../helpers'
import { everyKind } from '../support/every-kind'

const exported = async (id: string) => (await call('GET', `/v1/sessions/${id}/export`)).text
const imported = (id: string, body: string, type = 'application/x-ndjson') =>
  call('POST', `/v1/sessions/${id}/import`, { body, headers: { 'Content-Type': type } })
const lines = (text: string) => text.split('\n').filter((line) => line !== '')
const events = (text: string) =>
  lines(text)
    .slice(1)
    .map((line) => JSON.parse(line))
/** What a session answers at `path`, but the usage of `/context`: what its own model calls spent, which an import does not copy. */
const read = async (id: string, path: string) => {
  const { usage: _spent, ...body } = (await call('GET', `/v1/sessions/${id}/${path}`)).body
  return body
}
const same = async (a: string, b: string) => {
  for (const path of ['view', 'branches', 'compactions', 'context'])
    expect(await read(b, path), path).toEqual(JSON.parse(JSON.stringify(await read(a, path)).replaceAll(a, b)))
}

describe('POST /v1/sessions/:id/import', () => {
  it('export → import into a new id → export gives the same events, and the same view, branches and compactions', async () => {
    const source = await everyKind('import')
    const file = await exported(source)
    const target = newSessionId('imported')
    const result = await imported(target, file)
    expect(result.status, result.text).toBe(200)
    expect(result.body).toEqual({ imported: events(file).length, skipped: 0, version: events(file).length })
    expect(events(await exported(target))).toEqual(events(file))
    await same(source, target)
  })

  it('in parts, each from an event line, then the whole file again: nothing twice', async () => {
    const source = await everyKind('import')
    const file = lines(await exported(source))
    const target = newSessionId('imported')
    const cut = Math.floor(file.length / 2)
    const first = await imported(target, file.slice(0, cut).join('\n'))
    expect(first.body).toMatchObject({ imported: cut - 1, skipped: 0 })
    const second = await imported(target, file.slice(cut).join('\n'))
    expect(second.body).toMatchObject({ imported: file.length - cut, skipped: 0 })
    const again = await imported(target, file.join('\n'))
    expect(again.body).toEqual({ imported: 0, skipped: file.length - 1, version: file.length - 1 })
    expect(events(await exported(target))).toEqual(events(file.join('\n')))
  })

  it('cut off mid-line (an upload dropped part-way), then sent again whole: the cut one writes nothing, the whole one everything once', async () => {
    const source = await everyKind('import')
    const file = await exported(source)
    const target = newSessionId('imported')
    // Cut inside a line's JSON, as a dropped connection leaves a body.
    const at = file.indexOf('"message"', Math.floor(file.length / 2))
    expect(at).toBeGreaterThan(0)
    const cut = await imported(target, file.slice(0, at))
    expectError(cut, 400, 'invalid_request')
    expect(cut.body.error.message).toMatch(/^line \d+: not JSON$/)
    expectError(await call('GET', `/v1/sessions/${target}`), 404, 'not_found')
    const again = await imported(target, file)
    expect(again.body).toEqual({ imported: events(file).length, skipped: 0, version: events(file).length })
    expect(events(await exported(target))).toEqual(events(file))
    await same(source, target)
  })

  it('the session line applies only when the import creates the session', async () => {
    const source = await everyKind('import')
    await call('PATCH', `/v1/sessions/${source}`, { body: { metadata: { app: 'notes' } } })
    const file = lines(await exported(source))
    const fresh = newSessionId('imported')
    await imported(fresh, file.join('\n'))
    expect((await call('GET', `/v1/sessions/${fresh}`)).body.metadata).toEqual({ app: 'notes' })
    const existing = newSessionId('imported')
    await call('POST', '/v1/sessions', { body: { id: existing, metadata: { mine: true } } })
    await imported(existing, file.join('\n'))
    expect((await call('GET', `/v1/sessions/${existing}`)).body.metadata).toEqual({ mine: true })
  })

  it('refuses, naming the line and writing nothing: not JSON, a bad event, a name not in the log or the import, an id with other content', async () => {
    const source = await everyKind('import')
    const file = lines(await exported(source))
    const target = newSessionId('imported')
    const bad = (at: number, line: string) => [...file.slice(0, at), line, ...file.slice(at + 1)].join('\n')
    expectError(await imported(target, bad(2, '{not json')), 400, 'invalid_request')
    expect((await imported(target, bad(2, '{not json'))).body.error.message).toBe('line 3: not JSON')
    const event = JSON.parse(file[2]!)
    const refused = await imported(target, bad(2, JSON.stringify({ ...event, message: { role: 'narrator', content: 'x' } })))
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toMatch(/^line 3: message\.role: /)
    // A compaction whose summary the part leaves out.
    const compaction = file.findIndex((line) => JSON.parse(line).type === 'COMPACTION')
    const cutBefore = await imported(target, [file[0], ...file.slice(compaction, compaction + 1)].join('\n'))
    expectError(cutBefore, 400, 'invalid_request')
    expect(cutBefore.body.error.message).toMatch(/^line 2: names "[^"]+", which is neither in the log nor in this import$/)
    expectError(await call('GET', `/v1/sessions/${target}`), 404, 'not_found')
    // The same id with other content.
    await imported(target, file.slice(0, 4).join('\n'))
    const version = (await call('GET', `/v1/sessions/${target}`)).body.version
    const changed = JSON.stringify({ ...event, message: { ...event.message, content: 'changed' } })
    const conflict = await imported(target, [file[0], file[1], changed, ...file.slice(4)].join('\n'))
    expectError(conflict, 409, 'id_conflict')
    expect(conflict.body.error.message).toBe(`line 3: "${event.id}" is in the log with other content`)
    expect((await call('GET', `/v1/sessions/${target}`)).body.version).toBe(version)
    expect(await wholeLog(target)).toHaveLength(3)
  })

  it('a problem found while writing (a REWIND to a summary event) leaves nothing written', async () => {
    const source = await everyKind('import')
    const file = lines(await exported(source))
    const summary = file.map((line) => JSON.parse(line)).find((event) => event.synthetic === true)
    const rewind = file.map((line) => JSON.parse(line)).find((event) => event.type === 'REWIND')
    const bad = JSON.stringify({ ...rewind, id: 'bad-rewind', rewind: { ...rewind.rewind, to: summary.id } })
    const target = newSessionId('imported')
    const refused = await imported(target, [...file, bad].join('\n'))
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toMatch(new RegExp(`^line ${file.length + 1}: `))
    expectError(await call('GET', `/v1/sessions/${target}`), 404, 'not_found')
  })

  it('refuses a boundary naming an event that is not a message (a 400 naming the line, not a failure)', async () => {
    const source = await everyKind('import')
    const file = lines(await exported(source))
    const events = file.map((line) => JSON.parse(line))
    const pins = events.find((event) => event.type === 'PINS')
    const compaction = events.find((event) => event.type === 'COMPACTION')
    const bad = JSON.stringify({ ...compaction, id: 'odd-pass', boundary: { ...compaction.boundary, pinned: [pins.id] } })
    const refused = await imported(newSessionId('imported'), [...file, bad].join('\n'))
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toBe(`line ${file.length + 1}: names "${pins.id}" as a MESSAGE, which it is not`)
    const json = await imported(newSessionId('imported'), '{"format": "openai", ', 'application/json')
    expectError(json, 400, 'invalid_request')
    expect(json.body.error.message).toBe('body: not valid JSON')
  })

  it('refuses a line holding a lone surrogate, naming it, as a JSON body is refused', async () => {
    const line =
      '{"id":"x1","type":"MESSAGE","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"bad \\ud800 text"}}'
    const target = newSessionId('imported')
    const refused = await imported(target, `\n\n${line}`)
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toMatch(/^line 3: message\.content: /)
    expectError(await call('GET', `/v1/sessions/${target}`), 404, 'not_found')
  })

  it('takes application/x-ndjson only', async () => {
    expectError(await imported(newSessionId('imported'), '{}', 'text/plain'), 415, 'unsupported_media_type')
  })
})

describe('POST /v1/sessions/:id/import of a history from elsewhere (JSON)', () => {
  const json = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/import`, { body })
  const shown = (log: any[]) =>
    log.map(({ message: m }) =>
      m.toolCalls
        ? `${m.role}:calls ${m.toolCalls.map((c: any) => c.id).join(',')}`
        : m.toolResponses
          ? `${m.role}:${m.toolResponses.map((r: any) => `${r.id}=${r.data}`).join(',')}`
          : `${m.role}:${m.content}`,
    )

  it('OpenAI chat messages: the system prompt, the turns, a tool call and its result', async () => {
    const id = newSessionId('from-openai')
    const result = await json(id, {
      format: 'openai',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'w1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'w1', content: 'sunny' },
        { role: 'assistant', content: 'Sunny.' },
        { role: 'user', content: 'Thanks' },
      ],
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body).toEqual({ imported: 6, skipped: 0, version: 6 })
    expect(shown(await wholeLog(id))).toEqual([
      'system:Be brief.',
      'user:Weather?',
      'assistant:calls w1',
      'tool:w1=sunny',
      'assistant:Sunny.',
      'user:Thanks',
    ])
  })

  it('Anthropic Messages: the system prompt apart, tool_use and tool_result blocks', async () => {
    const id = newSessionId('from-anthropic')
    const result = await json(id, {
      format: 'anthropic',
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] },
      ],
    })
    expect(result.status, result.text).toBe(200)
    expect(shown(await wholeLog(id))).toEqual([
      'system:Be brief.',
      'user:Weather?',
      'assistant:calls toolu_1',
      'tool:toolu_1=sunny',
      'assistant:Sunny.',
    ])
  })

  it('an assistant message with content null (its tool calls alone) stays null through each format’s export and import', async () => {
    const source = newSessionId('nulls')
    await call('POST', `/v1/sessions/${source}/events`, {
      body: {
        events: [
          { message: { role: 'system', content: 'Be brief.' } },
          { message: { role: 'user', content: 'Weather?' } },
          { message: { role: 'assistant', content: null, toolCalls: [{ id: 'w1', name: 'get_weather', arguments: '{}' }] } },
          { message: { role: 'tool', content: null, toolResponses: [{ id: 'w1', name: 'get_weather', data: 'sunny' }] } },
          { message: { role: 'assistant', content: 'Sunny.' } },
        ],
      },
    })
    const replies = async (id: string) =>
      (await wholeLog(id)).filter((e) => e.message.role === 'assistant').map((e) => e.message.content)
    expect(await replies(source)).toEqual([null, 'Sunny.'])
    const jsonl = newSessionId('nulls')
    const fromJsonl = await call('POST', `/v1/sessions/${jsonl}/import`, {
      body: (await call('GET', `/v1/sessions/${source}/export`)).text,
      headers: { 'Content-Type': 'application/x-ndjson' },
    })
    expect(fromJsonl.status, fromJsonl.text).toBe(200)
    expect(await replies(jsonl)).toEqual([null, 'Sunny.'])
    for (const format of ['openai', 'anthropic']) {
      const exported = (await call('GET', `/v1/sessions/${source}/export?format=${format}`)).body
      const target = newSessionId('nulls')
      const result = await json(target, { format, ...exported })
      expect(result.status, `${format}: ${result.text}`).toBe(200)
      expect(await replies(target), format).toEqual([null, 'Sunny.'])
    }
  })

  it('a ChatGPT conversation: the path to its current node, hidden and empty messages left out', async () => {
    const node = (id: string, parent: string | null, role: string, text: string, extra: Record<string, unknown> = {}) => ({
      id,
      parent,
      children: [],
      message: { id, author: { role }, content: { content_type: 'text', parts: [text] }, create_time: 1_700_000_000, ...extra },
    })
    const conversation = {
      title: 'Trip',
      current_node: 'a2',
      mapping: {
        root: { id: 'root', parent: null, children: ['s'], message: null },
        s: node('s', 'root', 'system', '', { metadata: { is_visually_hidden_from_conversation: true } }),
        u1: node('u1', 's', 'user', 'Plan a trip'),
        a1: node('a1', 'u1', 'assistant', 'Where to?'),
        u2old: node('u2old', 'a1', 'user', 'Paris'),
        u2: node('u2', 'a1', 'user', 'Rome, I meant'),
        a2: node('a2', 'u2', 'assistant', 'Rome it is.'),
      },
    }
    const id = newSessionId('from-chatgpt')
    const result = await json(id, { format: 'chatgpt', conversation })
    expect(result.status, result.text).toBe(200)
    expect(shown(await wholeLog(id))).toEqual([
      'user:Plan a trip',
      'assistant:Where to?',
      'user:Rome, I meant',
      'assistant:Rome it is.',
    ])
  })

  it('only into an absent or empty session (409 otherwise, a retry too); errors name the message', async () => {
    const id = newSessionId('from-openai')
    const body = { format: 'openai', messages: [{ role: 'user', content: 'Hi' }] }
    expect((await json(id, body)).status).toBe(200)
    expectError(await json(id, body), 409, 'session_exists')
    const empty = newSessionId('from-openai')
    await call('POST', '/v1/sessions', { body: { id: empty } })
    expect((await json(empty, body)).status).toBe(200)
    const bad = await json(newSessionId('from-openai'), {
      format: 'openai',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'wizard', content: 'b' },
      ],
    })
    expectError(bad, 400, 'invalid_request')
    expect(bad.body.error.message).toMatch(/^messages\[1\]\.role: /)
    expectError(await json(newSessionId('x'), { format: 'word', messages: [] }), 400, 'invalid_request')
  })
})
