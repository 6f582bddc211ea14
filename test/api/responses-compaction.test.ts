import { describe, expect, it } from 'vitest'
import { call, newSessionId, newTag, parseSSE, until, upstreamRequests, wholeLog } from '../helpers'

/** Codex's way: the session in `session-id`, `store: false`, the whole input every time. */
const respond = (session: string, body: Record<string, unknown>) =>
  call('POST', '/v1/responses', { body: { store: false, ...body }, headers: { 'session-id': session } })
const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const developer = (text: string) => ({ type: 'message', role: 'developer', content: [{ type: 'input_text', text }] })
const assistant = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
const TRIGGER = { type: 'compaction_trigger' }
const weather = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }

/** A session whose strategy keeps the newest turn and summarizes the rest (turns never compact on their own). */
async function newSession(tag: string) {
  const id = newSessionId('codex')
  const policy = { trigger: { turnCount: 1000 }, strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${tag}` } } }
  expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
  return id
}

const messagesOf = (log: any[]) =>
  log.filter((event) => event.type === 'MESSAGE' && !event.synthetic).map(({ message: m }) => `${m.role}:${m.content ?? ''}`)

/** The compaction items of a streamed answer's `response.output_item.done` events: what Codex counts. */
const doneItems = (text: string) =>
  parseSSE(text)
    .filter((frame) => frame.event === 'response.output_item.done')
    .map((frame) => frame.data.item)

/** A session of One and its reply, then Two with a trigger: compacted there, its capsule answered. */
async function compactedAtTwo() {
  const tag = newTag()
  const id = await newSession(tag)
  const base = developer('Base.')
  await respond(id, { model: `echo#${tag}`, input: [base, user('One')] })
  const compacted = await respond(id, {
    model: `echo#${tag}`,
    input: [base, user('One'), assistant('Echo: One'), user('Two'), TRIGGER],
  })
  return { tag, id, base, capsule: compacted.body.output[0] }
}

describe('compaction for Responses clients', () => {
  it('a compaction_trigger stores nothing twice, runs a pass with a summary, and streams exactly one compaction item', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    const base = developer('You are Codex.')
    await respond(id, { model: `echo#${tag}`, input: [base, user('One')] })
    await respond(id, { model: `echo#${tag}`, input: [base, user('One'), assistant('Echo: One'), user('Two')] })
    const history = [base, user('One'), assistant('Echo: One'), user('Two'), assistant('Echo: Two')]
    const compacted = await respond(id, { model: `echo#${tag}`, stream: true, input: [...history, TRIGGER] })
    expect(compacted.status, compacted.text).toBe(200)
    const frames = parseSSE(compacted.text)
    expect(frames.map((frame) => frame.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ])
    expect(frames.map((frame) => frame.data.sequence_number)).toEqual([0, 1, 2, 3, 4])
    const [item] = doneItems(compacted.text)
    expect(doneItems(compacted.text)).toHaveLength(1)
    expect(item).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/), encrypted_content: expect.any(String) })
    expect(frames.at(-1)!.data.response.output).toEqual([item])
    const log = await wholeLog(id)
    expect(log.filter((event) => event.type === 'COMPACTION')).toHaveLength(1)
    expect(log.some((event) => event.synthetic && event.message?.content.includes('One'))).toBe(true)
    expect(messagesOf(log)).toEqual([
      'system:You are Codex.',
      'user:One',
      'assistant:Echo: One',
      'user:Two',
      'assistant:Echo: Two',
    ])
  })

  it('the capsule stands for all before it: what follows is matched after it, the system prompt still taken from every developer message', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    const [base, skills] = [developer('Base.'), developer('Skills.')]
    await respond(id, { model: `echo#${tag}`, input: [base, skills, user('One')] })
    const history = [base, skills, user('One'), assistant('Echo: One')]
    const compacted = await respond(id, { model: `echo#${tag}`, input: [...history, user('Two'), TRIGGER] })
    const [capsule] = compacted.body.output
    // Codex after its compaction: the base prompt, the user messages, the other developer message moved, the capsule.
    const after = [base, user('One'), skills, user('Two'), capsule]
    const answered = await respond(id, { model: `echo#${tag}`, input: [...after, user('Three')] })
    expect(answered.status, answered.text).toBe(200)
    expect(answered.body.output[0].content[0].text).toBe('Echo: Three')
    const sent = (await upstreamRequests(tag)).filter((request) => request.body.messages.at(-1)?.content === 'Three')
    expect(sent).toHaveLength(1)
    expect(sent[0]!.body.messages[0]).toEqual({ role: 'system', content: 'Base.\n\nSkills.' })
    // The next turn resends its own reply after the capsule: matched, not stored again.
    const next = [...after, user('Three'), answered.body.output[0], user('Four')]
    expect((await respond(id, { model: `echo#${tag}`, input: next })).body.output[0].content[0].text).toBe('Echo: Four')
    expect(messagesOf(await wholeLog(id)).slice(1)).toEqual([
      'user:One',
      'assistant:Echo: One',
      'user:Two',
      'user:Three',
      'assistant:Echo: Three',
      'user:Four',
      'assistant:Echo: Four',
    ])
  })

  it('after the capsule, a history that left the session’s (an edit made through the API meanwhile) goes back to the capsule’s view, never to the empty one', async () => {
    const { tag, id, base, capsule } = await compactedAtTwo()
    const after = [base, user('One'), user('Two'), capsule]
    expect((await respond(id, { model: `echo#${tag}`, input: after })).body.output[0].content[0].text).toBe('Echo: Two')
    const summary = (await call('GET', `/v1/sessions/${id}/view`)).body.events.filter((e: any) => e.synthetic)
    expect(summary.length).toBeGreaterThan(0)
    // The user edits the last question through the API: the client's copy no longer matches past the capsule.
    const edit = await call('POST', `/v1/sessions/${id}/turns`, {
      body: {
        content: 'Two, edited',
        model: `echo#${tag}`,
        rewind: { to: (await wholeLog(id)).findLast((e) => e.message?.content === 'Two').id, position: 'before' },
      },
    })
    expect(edit.status, edit.text).toBe(200)
    const resumed = await respond(id, { model: `echo#${tag}`, input: [...after, assistant('Echo: Two'), user('Three')] })
    expect(resumed.status, resumed.text).toBe(200)
    expect(resumed.body.output[0].content[0].text).toBe('Echo: Three')
    // Past the capsule nothing was shared: back to the view it names (the summary kept), then what was sent.
    const rewinds = (await wholeLog(id)).filter((e) => e.type === 'REWIND')
    expect(rewinds.map((e) => [e.rewind.reason, e.rewind.position])).toEqual([
      ['edit', 'before'],
      ['divergence', 'before'],
    ])
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events
    expect(view.filter((e: any) => e.synthetic).map((e: any) => e.id)).toEqual(summary.map((e: any) => e.id))
    expect(messagesOf(view).slice(-3)).toEqual(['assistant:Echo: Two', 'user:Three', 'assistant:Echo: Three'])
  })

  it('after the capsule, when a rewind followed its pass at once (no message names its view): back to the view before the pass, uncompacted, nothing lost', async () => {
    const { tag, id, base, capsule } = await compactedAtTwo()
    const log = await wholeLog(id)
    const [one, two] = ['One', 'Two'].map((text) => log.find((e) => e.message?.content === text).id)
    // A rewind right after the pass's summaries, then a turn on the rewound view.
    expect((await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: one } })).status).toBe(200)
    expect((await call('POST', `/v1/sessions/${id}/turns`, { body: { content: 'Z', model: `echo#${tag}` } })).status).toBe(200)
    const resumed = await respond(id, {
      model: `echo#${tag}`,
      input: [base, user('One'), user('Two'), capsule, assistant('Echo: Two'), user('Three')],
    })
    expect(resumed.status, resumed.text).toBe(200)
    expect(resumed.body.output[0].content[0].text).toBe('Echo: Three')
    const rewinds = (await wholeLog(id)).filter((e) => e.type === 'REWIND')
    expect(rewinds.map((e) => [e.rewind.reason, e.rewind.to, e.rewind.position])).toEqual([
      ['api', one, 'at'],
      ['divergence', two, 'at'],
    ])
    expect(messagesOf((await call('GET', `/v1/sessions/${id}/view`)).body.events).slice(1)).toEqual([
      'user:One',
      'assistant:Echo: One',
      'user:Two',
      'assistant:Echo: Two',
      'user:Three',
      'assistant:Echo: Three',
    ])
  })

  it('mid-turn: the trigger stores the tool results; a request with nothing after the capsule goes on, and its retry is answered again', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    const model = `agent-w1#${tag}`
    const asked = await respond(id, { model, tools: [weather], input: [user('Weather?')] })
    const [callItem] = asked.body.output
    const results = [user('Weather?'), callItem, { type: 'function_call_output', call_id: 'w1', output: 'sunny' }]
    const compacted = await respond(id, { model, tools: [weather], input: [...results, TRIGGER] })
    expect(compacted.body.output).toHaveLength(1)
    expect(messagesOf(await wholeLog(id))).toEqual(['user:Weather?', 'assistant:', 'tool:'])
    // The model is asked to go on once, with the results in its prompt; the retry is answered from the log.
    const goingOn = async () =>
      (await upstreamRequests(tag)).filter((request) => request.body.messages.at(-1)?.role === 'tool').length
    expect(await goingOn()).toBe(0)
    const goOn = await respond(id, { model, tools: [weather], input: [user('Weather?'), compacted.body.output[0]] })
    expect(goOn.status, goOn.text).toBe(200)
    expect(goOn.body.output[0].content[0].text).toBe('Results: sunny')
    const again = await respond(id, { model, tools: [weather], input: [user('Weather?'), compacted.body.output[0]] })
    expect(again.body.id).toBe(goOn.body.id)
    expect(await goingOn()).toBe(1)
  })

  it('a capsule made up, altered, or of another session is a 400 naming it; nothing is written', async () => {
    const tag = newTag()
    const [mine, theirs] = [await newSession(tag), await newSession(tag)]
    await respond(mine, { model: 'echo', input: [user('Mine')] })
    await respond(theirs, { model: 'echo', input: [user('Theirs')] })
    const [capsule] = (await respond(theirs, { model: 'echo', input: [user('Theirs'), assistant('Echo: Theirs'), TRIGGER] })).body
      .output
    const version = (await call('GET', `/v1/sessions/${mine}`)).body.version
    for (const token of [capsule.encrypted_content, `${capsule.encrypted_content.slice(0, -4)}AAAA`, 'gAAAAAmadeup']) {
      const refused = await respond(mine, {
        model: 'echo',
        input: [user('Mine'), { ...capsule, encrypted_content: token }, user('x')],
      })
      expect(refused.status, refused.text).toBe(400)
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'input[1].encrypted_content' })
    }
    expect((await call('GET', `/v1/sessions/${mine}`)).body.version).toBe(version)
  })

  it('a capsule is checked also beside previous_response_id, and needs a session; a compaction’s response id is one to go on from', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    const first = await respond(id, { model: 'echo', input: [user('One')] })
    const compacted = await respond(id, { model: 'echo', input: [user('One'), assistant('Echo: One'), TRIGGER] })
    const [capsule] = compacted.body.output
    const forged = { ...capsule, encrypted_content: 'dsc1.made.up' }
    const chained = await call('POST', '/v1/responses', {
      body: { model: 'echo', previous_response_id: first.body.id, input: [forged, user('Two')] },
    })
    expect(chained.status, chained.text).toBe(400)
    expect(chained.body.error.param).toBe('input[0].encrypted_content')
    const unstored = await call('POST', '/v1/responses', { body: { model: 'echo', store: false, input: [capsule, user('x')] } })
    expect(unstored.status, unstored.text).toBe(400)
    const next = await call('POST', '/v1/responses', {
      body: { model: 'echo', previous_response_id: compacted.body.id, input: [user('Two')] },
    })
    expect(next.status, next.text).toBe(200)
    expect(next.body.output[0].content[0].text).toBe('Echo: Two')
    expect(next.headers.get('X-Rewound')).toBeNull()
  })

  it('POST /v1/responses/compact answers the view’s user messages and one compaction item, even when nothing is covered', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    await respond(id, { model: `echo#${tag}`, input: [user('Only')] })
    const compacted = await call('POST', '/v1/responses/compact', {
      body: { model: `echo#${tag}` },
      headers: { 'session-id': id },
    })
    expect(compacted.status, compacted.text).toBe(200)
    expect(compacted.body.object).toBe('response.compaction')
    expect(compacted.body.output.map((item: any) => item.type)).toEqual(['message', 'compaction'])
    expect(compacted.body.output[0].content[0].text).toBe('Only')
    expect((await wholeLog(id)).some((event) => event.type === 'COMPACTION')).toBe(false)
  })

  it('context_management’s compact_threshold is a tokenCount trigger for the request', async () => {
    const tag = newTag()
    const id = await newSession(tag)
    await respond(id, { model: `echo#${tag}`, input: [user('One')] })
    const context_management = [{ type: 'compaction', compact_threshold: 1 }]
    const input = [user('One'), assistant('Echo: One'), user('Two')]
    expect((await respond(id, { model: `echo#${tag}`, input, context_management })).status).toBe(200)
    await until(async () => (await wholeLog(id)).some((event) => event.type === 'COMPACTION'), 'a compaction')
  })
})
