import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { afterAll, describe, expect, it } from 'vitest'
import { sessionStub } from '../../src/object/address'
import {
  append,
  assistant,
  call,
  expectEveryLogWhole,
  expectWholeLog,
  newSessionId,
  newTag,
  releaseUpstream,
  sseReader,
  tokenFor,
  turn,
  until,
  untilUpstreamReceived,
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'
import { expectNothingLost } from '../support/log-checker'
import { send, shown, u } from '../support/messages-door'
import { attempts, deliveries, newUser, register } from '../support/webhook-receiver'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const viewIds = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id) as string[]

/**
 * A session (q1, r1) whose door turn (q2) has started its policy's pass in the background: the
 * pass waits at the upstream for its summary, held under `passTag`.
 */
async function passWaiting(prefix: string) {
  const passTag = newTag()
  const id = newSessionId(prefix)
  const policy = { trigger: { always: true }, strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${passTag}` } } }
  expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
  await append(id, [user('q1', 'u1'), assistant('r1', 'a1')])
  const door = await call('POST', '/v1/chat/completions', {
    body: { model: 'echo', messages: [u('q1'), { role: 'assistant', content: 'r1' }, u('q2')] },
    headers: { 'X-Session-Id': id },
  })
  expect(door.status, door.text).toBe(200)
  await untilUpstreamReceived(passTag)
  return { id, passTag }
}

describe('round three under concurrency', () => {
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

  it('a Messages request whose connection drops mid-stream is stored all the same; its retry (x-stainless-retry-count: 1) answers the stored message without calling the model', async () => {
    const id = newSessionId('retry')
    const tag = newTag()
    const response = await exports.default.fetch(
      new Request('https://sessions.test/v1/messages', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${await tokenFor('alice')}`,
          'Content-Type': 'application/json',
          'anthropic-version': '2023-06-01',
          'X-Session-Id': id,
        },
        // The upstream streams the whole reply, then holds the end of its stream.
        body: JSON.stringify({ model: `holdend#${tag}`, max_tokens: 256, stream: true, messages: [u('Hello there')] }),
      }),
    )
    const stream = sseReader(response)
    await stream.until((frames) => frames.some((frame) => frame.event === 'content_block_delta'))
    await stream.cancel() // the connection drops
    await releaseUpstream(tag)
    const stored = async () => (await call('GET', `/v1/sessions/${id}/events`)).body.events?.length === 2
    await until(stored, 'the turn stored')
    const again = newTag()
    const retry = await send(id, { model: `echo#${again}`, messages: [u('Hello there')] }, { 'x-stainless-retry-count': '1' })
    expect(retry.status, retry.text).toBe(200)
    expect(retry.body.content[0].text).toBe('Echo: Hello there')
    expect(await upstreamRequests(again)).toHaveLength(0)
    expect(shown((await expectWholeLog(id)).events)).toEqual(['user:Hello there', 'assistant:Echo: Hello there'])
    // Claude Code's own retry says 0, but Claude Code always sends its whole history: in the
    // session its own id names, its session header makes it resent.
    const fromClaudeCode = (headers: Record<string, string>) =>
      call('POST', '/v1/messages', {
        body: { model: `echo#${again}`, max_tokens: 256, messages: [u('Hello there')] },
        headers: {
          'anthropic-version': '2023-06-01',
          'x-stainless-retry-count': '0',
          'x-claude-code-session-id': id,
          ...headers,
        },
      })
    expect((await fromClaudeCode({})).body.content[0].text).toBe('Echo: Hello there')
    expect(await upstreamRequests(again)).toHaveLength(0)
    // Where X-Session-Id names the session (runs may share it), or without either header, the same
    // message is asked again: a new turn (a retry must hold an assistant message).
    expect((await fromClaudeCode({ 'X-Session-Id': id })).status).toBe(200)
    expect(await upstreamRequests(again)).toHaveLength(1)
    const asked = await send(id, { model: `echo#${again}`, messages: [u('Hello there')] })
    expect(asked.status, asked.text).toBe(200)
    expect(await upstreamRequests(again)).toHaveLength(2)
  })

  it('a chat completion resent with x-stainless-retry-count answers its stored reply when it is the whole conversation, and is a new turn when it is not', async () => {
    const id = newSessionId('retry')
    const tag = newTag()
    const chat = (content: string, headers: Record<string, string> = {}) =>
      call('POST', '/v1/chat/completions', {
        body: { model: `echo#${tag}`, messages: [{ role: 'user', content }] },
        headers: { 'X-Session-Id': id, ...headers },
      })
    const first = await chat('Hi')
    const resent = await chat('Hi', { 'x-stainless-retry-count': '1' })
    expect(resent.status, resent.text).toBe(200)
    expect(resent.body.choices[0].message.content).toBe('Echo: Hi')
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expect(resent.body.id).toBe(first.body.id)
    // A second question, then the first asked again and resent: the conversation holds more, so it is new.
    await chat('More')
    const again = await chat('More', { 'x-stainless-retry-count': '2' })
    expect(again.body.choices[0].message.content).toBe('Echo: More')
    expect(await upstreamRequests(tag)).toHaveLength(3)
    expect(shown((await expectWholeLog(id)).events)).toEqual([
      'user:Hi',
      'assistant:Echo: Hi',
      'user:More',
      'assistant:Echo: More',
      'user:More',
      'assistant:Echo: More',
    ])
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

describe('round three with the object killed', () => {
  it('during a background pass waiting for its summary: nothing is written, the session is not left compacting, and a pass runs again', async () => {
    const { id, passTag } = await passWaiting('killed')
    const before = (await call('GET', `/v1/sessions/${id}/view`)).body
    await abortAllDurableObjects()
    await releaseUpstream(passTag) // answered to no one
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before)
    const context = (await call('GET', `/v1/sessions/${id}/context`)).body
    expect(context).toMatchObject({ compacting: false })
    expect((await expectWholeLog(id)).events.every((e) => e.type === 'MESSAGE')).toBe(true)
    // Not stuck: a pass asked for now runs and covers the first turn — the only pass in the log
    // (the one the kill stopped, its summary answered to no one, wrote nothing then or since).
    const pass = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(pass.status, pass.text).toBe(200)
    expect(pass.body.unchanged).toBe(false)
    const { events, covered } = await expectWholeLog(id)
    expect(covered).toEqual(new Set(['u1', 'a1']))
    expect(events.filter((e) => e.type === 'COMPACTION')).toHaveLength(1)
  })

  it('while a webhook delivery is at its receiver: the attempt is never recorded, and the delivery is attempted again once its lease ends, under the same webhook-id', async () => {
    const as = newUser()
    // The receiver leaves the first attempt unanswered for longer than the attempt's timeout.
    const hook = await register(as, 'slow-once', ['turn.completed'])
    const id = newSessionId('killed')
    expect((await turn(id, { content: 'q' }, as)).status).toBe(200)
    await until(async () => (await attempts(hook.name)).length === 1, 'the first attempt')
    await abortAllDurableObjects()
    await until(async () => (await deliveries(as, hook.id, 'delivered')).length === 1, 'the delivery after the lease')
    const all = await attempts(hook.name)
    expect(all.length).toBeGreaterThanOrEqual(2)
    expect(new Set(all.map((a) => a.headers['webhook-id'])).size).toBe(1)
    expect(all.at(-1)!.answered).toBe(200)
    expect(JSON.parse(all.at(-1)!.body)).toMatchObject({ type: 'turn.completed' })
    // The object died with the first attempt in flight: only the retry is on the record (a timed-out attempt would be too).
    expect((await deliveries(as, hook.id))[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 200 })
    expect(expectNothingLost(await wholeLog(id, as)).view.map((e: any) => e.message.content)).toEqual(['q', 'Echo: q'])
  })

  it('right after a turn is written, wherever its notice is (the session’s outbox, the hand-over, the user’s deliveries): each notice is delivered, all its attempts under one webhook-id', async () => {
    const as = newUser()
    const hook = await register(as, 'ok', ['turn.completed'])
    const id = newSessionId('killed')
    for (const content of ['first', 'second', 'third']) {
      expect((await turn(id, { content }, as)).status).toBe(200)
      await abortAllDurableObjects()
    }
    await until(async () => (await deliveries(as, hook.id, 'delivered')).length === 3, 'three deliveries')
    const all = await attempts(hook.name)
    // One delivery per turn: no notice fanned out twice under a second webhook-id.
    const byId = new Map(all.map((a) => [a.headers['webhook-id'], JSON.parse(a.body)]))
    expect(byId.size).toBe(3)
    expect([...byId.values()].every((body) => body.type === 'turn.completed' && body.data.sessionId === id)).toBe(true)
    expect(expectNothingLost(await wholeLog(id, as)).view).toHaveLength(6)
  })
})

describe('round three with a write that fails', () => {
  it('a rewind whose write fails after folding the pins over its REWIND: nothing is rewound, and what the write read of its REWIND is forgotten', async () => {
    const id = newSessionId()
    const [u1, , u2] = (await append(id, [user('u1'), assistant('a1'), user('u2'), assistant('a2')])).events
    // A pin: the rewind's write then folds the pins again over its new lineage, reading its own REWIND.
    expect((await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: [u1!.id] } })).status).toBe(200)
    const stub = sessionStub(env, 'alice', id)
    const failed = await runInDurableObject(stub, async (instance, state) => {
      const sql = state.storage.sql
      const exec = sql.exec
      const original = exec.bind(sql)
      sql.exec = ((query: string, ...bindings: SqlStorageValue[]) => {
        if (query.startsWith('INSERT OR REPLACE INTO session')) throw new Error('injected: the session row is not written')
        return original(query, ...bindings)
      }) as typeof sql.exec
      try {
        return await instance.rewind({ to: u2!.id, position: 'before' }).then(String, String)
      } finally {
        sql.exec = exec
      }
    })
    expect(failed).toContain('injected')
    // The next event takes the seq the failed REWIND had.
    await append(id, [user('u3')])
    const page = await runInDurableObject(stub, (instance) => instance.readLineage({ order: 'asc', fromId: u2!.id, limit: 10 }))
    if (!page.ok) throw new Error(JSON.stringify(page.error))
    expect(page.value?.events.map((event) => event.message.content)).toEqual(['u2', 'a2', 'u3'])
    // The log holds no REWIND, and its view is every message.
    const log = expectNothingLost(await wholeLog(id))
    expect(log.view.map((e: any) => e.message.content)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3'])
  })
})
