import { afterAll, describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectEveryLogWhole,
  expectWholeLog,
  newSessionId,
  newTag,
  releaseUpstream,
  turn,
  until,
  untilUpstreamReceived,
  user,
} from '../helpers'
import { send, shown, u } from '../support/messages-door'
import { passWaiting } from '../support/pass-waiting'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const viewIds = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id) as string[]

describe('requests overlapping on one session', () => {
  it('a fork while a turn runs on the source: the fork holds the view the source had, the turn completes on the source alone', async () => {
    const id = newSessionId('src')
    await append(id, [user('q1', 'u1'), assistant('r1', 'a1'), user('q2', 'u2'), assistant('r2', 'a2')])
    const tag = newTag()
    const running = turn(id, { content: 'while forking', model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag)
    const target = newSessionId('fork')
    const forked = await call('POST', `/v1/sessions/${id}/fork`, { body: { id: target } })
    expect(forked.status, forked.text).toBe(201)
    await releaseUpstream(tag)
    expect((await running).status).toBe(200)
    // The fork took the view as it stood: the turn in flight had written nothing yet.
    expect(forked.body.forkedFrom).toMatchObject({ sessionId: id, eventId: 'a2' })
    expect(await viewIds(target)).toEqual(['u1', 'a1', 'u2', 'a2'])
    expect(shown((await expectWholeLog(target)).events)).toEqual(['user:q1', 'assistant:r1', 'user:q2', 'assistant:r2'])
    // The source has the turn, and only the source.
    expect(shown((await expectWholeLog(id)).events).slice(-2)).toEqual(['user:while forking', 'assistant:Echo: while forking'])
  })

  it('two doors on one session, the second sent while the first holds the model: the second, whose client never saw the first, branches off it, and nothing is lost', async () => {
    const id = newSessionId('doors')
    const model = `echo#${newTag()}`
    const history = [u('One'), { role: 'assistant', content: 'Echo: One' }]
    expect((await send(id, { model, messages: [u('One')] })).status).toBe(200)
    // A Messages client's turn holds the model; a chat client's, sent meanwhile with the same history, waits behind it.
    const tag = newTag()
    const fromMessages = send(id, { model: `hold#${tag}`, messages: [...history, u('From Messages')] })
    await untilUpstreamReceived(tag)
    const fromChat = call('POST', '/v1/chat/completions', {
      body: { model, messages: [...history, { role: 'user', content: 'From chat' }] },
      headers: { 'X-Session-Id': id },
    })
    await until(async () => (await call('GET', `/v1/sessions/${id}/context`)).body.queued === 1, 'the chat request queued')
    await releaseUpstream(tag)
    const [messages, chat] = await Promise.all([fromMessages, fromChat])
    expect(messages.status, messages.text).toBe(200)
    expect(messages.body.content[0].text).toBe('Echo: From Messages')
    expect(chat.status, chat.text).toBe(200)
    expect(chat.body.choices[0].message.content).toBe('Echo: From chat')
    // The chat client's history lacks the Messages turn: it branched off before it.
    expect(chat.headers.get('X-Rewound')).toBe('2')
    const events = (await expectWholeLog(id)).events
    expect(shown(events)).toEqual([
      'user:One',
      'assistant:Echo: One',
      'user:From Messages',
      'assistant:Echo: From Messages',
      'user:From chat',
      'assistant:Echo: From chat',
    ])
    expect(events.filter((e) => e.type === 'REWIND')).toHaveLength(1)
    const view = (await call('GET', `/v1/sessions/${id}/view?format=openai`)).body.messages.map((m: any) => m.content)
    expect(view).toEqual(['One', 'Echo: One', 'From chat', 'Echo: From chat'])
    // The Messages turn is kept as an abandoned branch.
    const [branch] = (await call('GET', `/v1/sessions/${id}/branches`)).body.branches
    expect(branch).toMatchObject({ events: 2, headline: 'From Messages' })
  })

  it('a rewind sent while a turn holds the model and a background pass waits for its summary: it waits for the turn, then the pass yields to it', async () => {
    const { id, passTag } = await passWaiting('race')
    // A turn holds the model; a rewind to before q2 is sent meanwhile.
    const turnTag = newTag()
    const running = turn(id, { content: 'q3', model: `hold#${turnTag}`, compaction: false })
    await untilUpstreamReceived(turnTag)
    const rewound = call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'u1', position: 'at' } })
    await until(async () => (await call('GET', `/v1/sessions/${id}/context`)).body.queued === 1, 'the rewind queued')
    await releaseUpstream(turnTag)
    expect((await running).status).toBe(200)
    const rewind = await rewound
    expect(rewind.status, rewind.text).toBe(200)
    // The rewind came after the turn, so it abandons that turn whole: q1 stays; its reply, q2, q3 and theirs leave.
    expect(rewind.body.abandoned).toBe(5)
    expect(await releaseUpstream(passTag)).toBe(1)
    await until(async () => !(await call('GET', `/v1/sessions/${id}/context`)).body.compacting, 'the pass to end')
    const { events } = await expectWholeLog(id)
    expect(events.map((e) => (e.type === 'MESSAGE' ? `${e.message.role}:${e.message.content}` : e.type))).toEqual([
      'user:q1',
      'assistant:r1',
      'user:q2',
      'assistant:Echo: q2',
      'user:q3',
      'assistant:Echo: q3',
      'REWIND',
    ])
    expect(await viewIds(id)).toEqual(['u1'])
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.lastCompactionError).toBeNull()
  })
})
