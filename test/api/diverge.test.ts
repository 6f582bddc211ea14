import { afterAll, describe, expect, it } from 'vitest'
import { call, expectError, expectEveryLogWhole, newSessionId, newTag, upstreamRequests, wholeLog } from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const complete = (session: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/chat/completions', { body, headers: { 'X-Session-Id': session, ...headers } })
const u = (content: string) => ({ role: 'user', content })
const a = (content: string) => ({ role: 'assistant', content })
const viewContents = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { message: { content: string } }) => e.message.content)
const rewinds = async (id: string) => (await wholeLog(id)).filter((e: { type: string }) => e.type === 'REWIND')
const sent = async (tag: string) =>
  (await upstreamRequests(tag)).map((request) => request.body.messages.map((m: { content: string | null }) => m.content))

/** A chat app's conversation of two turns, its whole history sent each time. */
async function twoTurns() {
  const id = newSessionId('chat')
  await complete(id, { model: 'echo', messages: [u('one')] })
  await complete(id, { model: 'echo', messages: [u('one'), a('Echo: one'), u('two')] })
  return id
}

describe('a door on a history that left the session’s (ON_DIVERGE rewind, the default)', () => {
  it('an edited last message: rewinds to where it branched off, answers the edit, says what it abandoned', async () => {
    const id = await twoTurns()
    const tag = newTag()
    const edited = await complete(id, { model: `echo#${tag}`, messages: [u('one'), a('Echo: one'), u('two, edited')] })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.headers.get('X-Rewound')).toBe('2')
    expect(edited.body.choices[0].message.content).toBe('Echo: two, edited')
    expect(await sent(tag)).toEqual([['one', 'Echo: one', 'two, edited']])
    expect(await viewContents(id)).toEqual(['one', 'Echo: one', 'two, edited', 'Echo: two, edited'])
    const [rewind] = await rewinds(id)
    expect(rewind.rewind).toMatchObject({ position: 'at', reason: 'divergence' })
    // The next request carries the edited history: it is the lineage now, nothing more is rewound.
    const next = await complete(id, {
      model: 'echo',
      messages: [u('one'), a('Echo: one'), u('two, edited'), a('Echo: two, edited'), u('three')],
    })
    expect(next.headers.get('X-Rewound')).toBeNull()
    expect(await viewContents(id)).toEqual(['one', 'Echo: one', 'two, edited', 'Echo: two, edited', 'three', 'Echo: three'])
    expect(await rewinds(id)).toHaveLength(1)
  })

  it('an edited reply: the question before it kept, the rest written as sent, the old turn abandoned, nothing deleted', async () => {
    const id = await twoTurns()
    const edited = await complete(id, { model: 'echo', messages: [u('one'), a('One, said better.'), u('two')] })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.headers.get('X-Rewound')).toBe('3') // Echo: one, two, Echo: two
    expect(await viewContents(id)).toEqual(['one', 'One, said better.', 'two', 'Echo: two'])
    expect((await wholeLog(id)).filter((e: { type: string }) => e.type === 'MESSAGE')).toHaveLength(7)
  })

  it('a single message is what is new, never an edit: it is appended (a client sending only new messages)', async () => {
    const id = await twoTurns()
    const result = await complete(id, { model: 'echo', messages: [u('one, edited')] })
    expect(result.headers.get('X-Rewound')).toBeNull()
    expect(await viewContents(id)).toEqual(['one', 'Echo: one', 'two', 'Echo: two', 'one, edited', 'Echo: one, edited'])
  })

  it('a client that compacted its own copy: a fresh lineage holding what it sent, the old one kept in the log', async () => {
    const id = await twoTurns()
    const mine = [u('Summary: we counted to two.'), a('Understood.'), u('three')]
    const result = await complete(id, { model: 'echo', messages: mine })
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('X-Rewound')).toBe('4')
    expect(await viewContents(id)).toEqual(['Summary: we counted to two.', 'Understood.', 'three', 'Echo: three'])
    expect((await rewinds(id))[0].rewind).toMatchObject({ to: null, reason: 'divergence' })
  })

  it('a changed tool result: rewinds to the call, stores the new result and what follows as sent, answers', async () => {
    const id = newSessionId('chat')
    const call1 = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"weather"}' } }
    const asked = { role: 'assistant', content: null, tool_calls: [call1] }
    const result = (content: string) => ({ role: 'tool', tool_call_id: 'call_1', content })
    const history = [u('weather?'), asked, result('rain'), a('It rains.'), u('and tomorrow?')]
    expect((await complete(id, { model: 'echo', messages: history })).status).toBe(200)
    // The client sends the same history with the tool's result changed, and the reply after it changed too.
    const changed = [u('weather?'), asked, result('sun'), a('It is sunny.'), u('and tomorrow?')]
    const answered = await complete(id, { model: 'echo', messages: changed })
    expect(answered.status, answered.text).toBe(200)
    expect(answered.headers.get('X-Rewound')).toBe('4') // rain, It rains., and tomorrow?, its reply
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events.map(
      ({
        message,
      }: {
        message: { role: string; content: string | null; toolCalls?: { id: string }[]; toolResponses?: { data: string }[] }
      }) =>
        message.toolResponses
          ? `tool: ${message.toolResponses.map((r) => r.data).join()}`
          : `${message.role}: ${message.content}${message.toolCalls ? ` → ${message.toolCalls.map((c) => c.id)}` : ''}`,
    )
    expect(view).toEqual([
      'user: weather?',
      // Its calls alone: content null, as sent.
      'assistant: null → call_1',
      'tool: sun',
      'assistant: It is sunny.',
      'user: and tomorrow?',
      'assistant: Echo: and tomorrow?',
    ])
  })

  it('a long rewritten copy: the REWIND and the history stored first, compacted to fit, the last message answered', async () => {
    const id = await twoTurns()
    const tag = newTag()
    const history = Array.from({ length: 2_000 }, (_, i) =>
      i % 2 ? a(`reply ${i} about the plan`) : u(`question ${i} about the plan`),
    )
    const result = await complete(id, { model: `echo#${tag}`, messages: [...history, u('And now?')] })
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.headers.get('X-Rewound')).toBe('4')
    expect(result.body.choices[0].message.content).toBe('Echo: And now?')
    const log = await wholeLog(id)
    // The old lineage, the REWIND, then everything the client sent, in order, and the reply.
    const types = log.map((e: { type: string }) => e.type)
    expect(types.slice(0, 5)).toEqual(['MESSAGE', 'MESSAGE', 'MESSAGE', 'MESSAGE', 'REWIND'])
    const sent = log.filter(
      (e: { type: string; synthetic: boolean; seq: number }) => e.type === 'MESSAGE' && !e.synthetic && e.seq > 5,
    )
    expect(sent.map((e: { message: { content: string } }) => e.message.content)).toEqual([
      ...history.map((m) => m.content),
      'And now?',
      'Echo: And now?',
    ])
    expect(types.filter((type: string) => type === 'COMPACTION').length).toBeGreaterThan(0)
    const asked = (await upstreamRequests(tag)).filter((r) => r.body.messages.at(-1)?.content === 'And now?')
    expect(asked[0]!.body.messages.length).toBeLessThan(2_000)
  })

  it('an edit far back (more abandoned than a request’s length and then some): the branch point is still found, in the whole lookback', async () => {
    const id = newSessionId('chat')
    const messages = Array.from({ length: 15 }, (_, k) => [u(`q${k + 1}`), a(`Echo: q${k + 1}`)]).flat()
    for (let n = 1; n <= 29; n += 2)
      expect((await complete(id, { model: 'echo', messages: messages.slice(0, n) })).status).toBe(200)
    const edited = await complete(id, { model: 'echo', messages: [...messages.slice(0, 2), u('q2, edited')] })
    expect(edited.status, edited.text).toBe(200)
    expect(edited.headers.get('X-Rewound')).toBe('28') // q2 … Echo: q15
    expect(edited.body.choices[0].message.content).toBe('Echo: q2, edited')
    expect((await rewinds(id)).map((e: any) => e.rewind.to)).toEqual([(await wholeLog(id))[1].id])
  })

  it('an edited middle of the history: the shared start kept, the rest written as sent', async () => {
    const id = await twoTurns()
    await complete(id, { model: 'echo', messages: [u('one'), a('Echo: one'), u('two'), a('Echo: two'), u('three')] })
    // The client rewrote the second reply and asks on.
    const result = await complete(id, {
      model: 'echo',
      messages: [u('one'), a('Echo: one'), u('two'), a('A better two.'), u('four')],
    })
    expect(result.headers.get('X-Rewound')).toBe('3') // Echo: two, three, Echo: three
    expect(await viewContents(id)).toEqual(['one', 'Echo: one', 'two', 'A better two.', 'four', 'Echo: four'])
  })

  it('a regenerate by resending: the stored reply by default; with X-Regenerate a new one, the old one out of the view', async () => {
    const id = await twoTurns()
    const tag = newTag()
    const history = [u('one'), a('Echo: one'), u('two')]
    const again = await complete(id, { model: `echo#${tag}`, messages: history })
    expect(again.body.choices[0].message.content).toBe('Echo: two')
    expect(await upstreamRequests(tag)).toHaveLength(0) // a retry: the stored reply
    const regenerated = await complete(id, { model: `echo#${tag}`, messages: history }, { 'X-Regenerate': 'true' })
    expect(regenerated.status, regenerated.text).toBe(200)
    expect(await sent(tag)).toEqual([['one', 'Echo: one', 'two']])
    expect(await rewinds(id)).toEqual([expect.objectContaining({ rewind: expect.objectContaining({ reason: 'regenerate' }) })])
    expect((await call('GET', `/v1/sessions/${id}/view`)).body.events).toHaveLength(4)
    // On a request with something new, X-Regenerate changes nothing.
    const plain = await complete(id, { model: 'echo', messages: [u('three')] }, { 'X-Regenerate': 'true' })
    expect(plain.body.choices[0].message.content).toBe('Echo: three')
    expect(await rewinds(id)).toHaveLength(1)
  })

  it('says X-Rewound on a streamed answer too', async () => {
    const id = await twoTurns()
    const response = await call('POST', '/v1/chat/completions', {
      body: { model: 'echo', stream: true, messages: [u('one'), a('Echo: one'), u('two, edited')] },
      headers: { 'X-Session-Id': id },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('X-Rewound')).toBe('2')
  })

  it('X-On-Diverge: reject keeps the strict reconciliation: 409, nothing written; other values are a 400', async () => {
    const id = await twoTurns()
    const before = await wholeLog(id)
    expectError(
      await complete(id, { model: 'echo', messages: [u('one'), a('edited'), u('two')] }, { 'X-On-Diverge': 'reject' }),
      409,
      'history_diverged',
    )
    expect(await wholeLog(id)).toEqual(before)
    const odd = await complete(id, { model: 'echo', messages: [u('x')] }, { 'X-On-Diverge': 'maybe' })
    expectError(odd, 400, 'invalid_request')
    expect(odd.body.error.message).toMatch(/x-on-diverge/i)
  })
})
