import { afterAll, describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectError,
  expectEveryLogWhole,
  newSessionId,
  numberedTurns,
  system,
  until,
  user,
  wholeLog,
} from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const pins = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/pins`, { body })
const compactNow = (id: string, window: Record<string, number> = { lastTurns: 1 }) =>
  call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window } } })
const viewIds = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id)

describe('POST /v1/sessions/:id/pins', () => {
  it('appends one PINS event and nothing else; a pass then never covers the pinned message: it is held after the system message', async () => {
    const id = await numberedTurns(3, 'pin') // S1 u1 a1 u2 a2 u3 a3
    const before = await viewIds(id)
    const pinned = await pins(id, { pin: ['a1'] })
    expect(pinned.status, pinned.text).toBe(200)
    expect(pinned.body).toMatchObject({
      pins: { type: 'PINS', seq: 8, pins: { pin: ['a1'], unpin: [] }, synthetic: false, tokens: 0 },
      pinned: ['a1'],
      version: 8,
    })
    expect(await viewIds(id)).toEqual(before)
    const context = (await call('GET', `/v1/sessions/${id}/context`)).body
    expect(context).toMatchObject({ events: { log: 8, view: 7, covered: 0 }, pinned: ['a1'] })
    const pass = await compactNow(id)
    expect(pass.status, pass.text).toBe(200)
    expect(pass.body.boundary.boundary).toMatchObject({ pinned: ['S1', 'a1'], held: ['a1'], preserved: ['u3', 'a3'] })
    expect(await viewIds(id)).toEqual(['S1', 'a1', 'u3', 'a3'])
    expect((await wholeLog(id)).filter((e: { type: string }) => e.type === 'PINS')).toHaveLength(1)
  })

  it('every event the API answers says whether it is pinned now', async () => {
    const id = await numberedTurns(2, 'pin')
    const appended = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [{ ...user('keep me', 'k'), pinned: true }] },
    })
    expect(appended.body.events.map((e: { id: string; pinned: boolean }) => [e.id, e.pinned])).toEqual([['k', true]])
    await pins(id, { pin: ['u1'] })
    const pinnedOf = (events: { id: string; pinned: boolean }[]) => events.filter((e) => e.pinned).map((e) => e.id)
    expect(pinnedOf((await call('GET', `/v1/sessions/${id}/events`)).body.events)).toEqual(['u1', 'k'])
    expect(pinnedOf((await call('GET', `/v1/sessions/${id}/view`)).body.events)).toEqual(['u1', 'k'])
    const hits = (await call('GET', `/v1/sessions/${id}/search?q=keep`)).body.hits
    expect(hits.map((hit: { event: { pinned: boolean } }) => hit.event.pinned)).toEqual([true])
    await pins(id, { unpin: ['k'] })
    const log = (await call('GET', `/v1/sessions/${id}/events`)).body.events
    expect(pinnedOf(log)).toEqual(['u1'])
    // Boundaries and PINS events are never pinned; every event carries the field.
    expect(log.every((e: { pinned?: boolean }) => typeof e.pinned === 'boolean')).toBe(true)
    const result = await call('POST', `/v1/sessions/${id}/turns`, { body: { content: 'one more', compaction: false } })
    expect(result.body.events.map((e: { pinned: boolean }) => e.pinned)).toEqual([false, false])
    expect(result.body.reply.pinned).toBe(false)
  })

  it('pins a message as it is appended; unpinned, it is covered by the next pass', async () => {
    const id = newSessionId('pin')
    await append(id, [
      { ...user('The task: keep answers under 50 words.', 'task'), pinned: true },
      assistant('Understood.', 'ok'),
    ])
    await append(id, [
      user('question 2', 'u2'),
      assistant('answer 2', 'a2'),
      user('question 3', 'u3'),
      assistant('answer 3', 'a3'),
    ])
    await compactNow(id)
    expect(await viewIds(id)).toEqual(['task', 'u3', 'a3'])
    // Held in front, the pinned question is no turn of the view.
    expect((await call('GET', `/v1/sessions/${id}/context`)).body).toMatchObject({ turns: 1, tokens: { preamble: 0 } })
    const unpinned = await pins(id, { unpin: ['task'] })
    expect(unpinned.body.pinned).toEqual([])
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    await compactNow(id)
    expect(await viewIds(id)).toEqual(['u4', 'a4'])
  })

  it('a pinned question is no turn: /view, the Session’s stats and /context count the same turns', async () => {
    const id = newSessionId('pin')
    await append(id, [{ ...user('The task.', 'task'), pinned: true }, assistant('Understood.', 'ok')])
    await append(id, [
      user('question 2', 'u2'),
      assistant('answer 2', 'a2'),
      user('question 3', 'u3'),
      assistant('answer 3', 'a3'),
    ])
    const turns = async () => [
      (await call('GET', `/v1/sessions/${id}/view`)).body.turns,
      (await call('GET', `/v1/sessions/${id}`)).body.stats.turns,
      (await call('GET', `/v1/sessions/${id}/context`)).body.turns,
    ]
    // Appended pinned, the task is no turn.
    expect(await turns()).toEqual([2, 2, 2])
    // Held in front of the view by the pass: still none.
    await compactNow(id)
    expect(await viewIds(id)).toEqual(['task', 'u3', 'a3'])
    expect(await turns()).toEqual([1, 1, 1])
    await pins(id, { pin: ['u3'] })
    expect(await turns()).toEqual([0, 0, 0])
    // Unpinned, both are turns again, the one held in front too.
    await pins(id, { unpin: ['task', 'u3'] })
    expect(await turns()).toEqual([2, 2, 2])
  })

  it('follows the lineage: a rewind that abandons a PINS event takes its pins away', async () => {
    const id = await numberedTurns(3, 'pin')
    expect((await pins(id, { pin: ['u1'] })).body.pinned).toEqual(['u1'])
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    // Back to a3: the PINS event after it is abandoned, u1 is ordinary again.
    expect((await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'a3' } })).status).toBe(200)
    expect((await pins(id, { pin: ['a2'] })).body.pinned).toEqual(['a2'])
  })

  it('a fork keeps the pins of its point: pinned in the new session, held by its passes', async () => {
    const id = await numberedTurns(3, 'pin')
    await pins(id, { pin: ['u1'] })
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    await pins(id, { pin: ['a2'] })
    // As of a4 only u1 was pinned; now a2 is too.
    const asOf = await call('POST', `/v1/sessions/${id}/fork`, { body: { at: 'a4' } })
    const now = await call('POST', `/v1/sessions/${id}/fork`, { body: {} })
    const pinnedOf = async (fork: string) => (await call('GET', `/v1/sessions/${fork}/context`)).body.pinned
    expect(await pinnedOf(asOf.body.id)).toEqual(['u1'])
    expect(await pinnedOf(now.body.id)).toEqual(['u1', 'a2'])
    await compactNow(now.body.id)
    expect(await viewIds(now.body.id)).toEqual(['S1', 'u1', 'a2', 'u4', 'a4'])
  })

  it('through the door: the background pass a chat-completions turn starts leaves the pinned message in the view', async () => {
    const id = newSessionId('pin')
    const policy = { trigger: { always: true }, strategy: { window: { lastTurns: 1 } } }
    expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
    await append(id, [{ ...user('Always answer in French.', 'rule'), pinned: true }, assistant('Compris.', 'ok')])
    const messages = [
      { role: 'user', content: 'Always answer in French.' },
      { role: 'assistant', content: 'Compris.' },
      { role: 'user', content: 'Bonjour?' },
    ]
    const answered = await call('POST', '/v1/chat/completions', {
      body: { model: 'echo', messages },
      headers: { 'X-Session-Id': id },
    })
    expect(answered.status, answered.text).toBe(200)
    await until(
      async () => (await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions.length === 1,
      'the background pass',
    )
    // The pass kept the newest turn and held the pinned rule; its reply was covered.
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events
    expect(view.map((e: { message: { content: string } }) => e.message.content)).toEqual([
      'Always answer in French.',
      'Bonjour?',
      'Echo: Bonjour?',
    ])
  })

  it('a session deleted and made again under the same id starts with nothing pinned', async () => {
    const id = await numberedTurns(2, 'pin')
    await pins(id, { pin: ['u1'] })
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    await append(id, [user('question 1', 'u1'), assistant('answer 1', 'a1')])
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.pinned).toEqual([])
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events.map((e: { pinned: boolean }) => e.pinned)).toEqual([
      false,
      false,
    ])
  })

  it('says which id and why: unknown, a summary, a boundary or a system message is a 400; nothing written', async () => {
    const id = newSessionId('pin')
    await append(id, [system('Be brief.', 's'), user('question 1', 'u1'), assistant('answer 1', 'a1')])
    await append(id, [user('question 2', 'u2'), assistant('answer 2', 'a2')])
    const pass = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: {} } },
    })
    const summaryId = pass.body.summary[0].id
    const version = pass.body.version
    const cases: [unknown, RegExp][] = [
      [{ pin: ['nope'] }, /^pin: no event "nope" in this session$/],
      [{ unpin: ['u1', 'nope'] }, /^unpin: no event "nope"/],
      [{ pin: [summaryId] }, /^pin: ".*" is a summary event/],
      [{ pin: [pass.body.boundary.id] }, /^pin: ".*" is a COMPACTION event/],
      [{ pin: ['s'] }, /^pin: "s" is a system message/],
      [{}, /pin or unpin must name at least one message/],
      [{ pin: [] }, /pin or unpin must name at least one message/],
    ]
    for (const [body, message] of cases) {
      const refused = await pins(id, body)
      expectError(refused, 400, 'invalid_request')
      expect(refused.body.error.message).toMatch(message)
    }
    expectError(await pins(id, { pin: ['u1'], expectedVersion: 1 }), 409, 'version_conflict')
    expectError(await pins(newSessionId(), { pin: ['u1'] }), 404, 'not_found')
    const appended = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [{ ...system('New rules.'), pinned: true }] },
    })
    expectError(appended, 400, 'invalid_request')
    expect(appended.body.error.message).toMatch(/events\[0\]\.pinned: a system message is not pinned/)
    expect((await call('GET', `/v1/sessions/${id}`)).body.version).toBe(version)
  })
})
