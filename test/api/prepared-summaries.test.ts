import { abortAllDurableObjects } from 'cloudflare:test'
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
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

/**
 * A policy whose own pass does not fire here (400 tokens), whose summary is prepared from 5% of
 * that (20 tokens: a few turns) and keeps the newest two turns; its summary model is held at the
 * fake upstream until the test releases it, so a pass that called it would not answer.
 */
const policyHeldBy = (tag: string) => ({
  trigger: { tokenCount: 400 },
  strategy: { window: { lastTurns: 2 }, summarizer: { model: `hold#${tag}` } },
  prepare: { at: 0.05 },
})

const context = async (id: string) => (await call('GET', `/v1/sessions/${id}/context`)).body
const ids = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/events`)).body.events.map((e: { id: string }) => e.id) as string[]

/** A session of three appended turns (q1…q3) and one turn through /turns (q4), whose preparation is released and kept. */
async function preparedSession() {
  const tag = newTag()
  const id = newSessionId('prep')
  expect((await call('POST', '/v1/sessions', { body: { id, policy: policyHeldBy(tag) } })).status).toBe(201)
  const turns = [1, 2, 3].flatMap((i) => [user(`question ${i}`, `q${i}`), assistant(`answer ${i}`, `a${i}`)])
  await append(id, turns)
  const fourth = await turn(id, { content: 'question 4', model: 'echo' })
  expect(fourth.status, fourth.text).toBe(200)
  // The turn answered; its preparation waits at the summary model.
  await untilUpstreamReceived(tag, 1)
  expect((await context(id)).preparing).toBe(true)
  await settled(id, tag)
  expect((await context(id)).prepared.state).toBe('ready')
  return { id, tag }
}

/** Releases the session's summary calls as they come until its preparation has ended. */
const settled = (id: string, tag: string) =>
  until(async () => {
    await releaseUpstream(tag)
    return !(await context(id)).preparing
  }, 'the preparation to end')

/** The text a summary request asks to be summarized (not the previous summary it rolls on from, which the fake echoed). */
const conversationOf = (request: { body: { messages: { role: string; content: string | null }[] } }) => {
  const prompt = request.body.messages.find((m) => m.role === 'user')!.content!
  return prompt.slice(prompt.lastIndexOf('Conversation to summarize:')).split('\n\n')[0]!
}

/**
 * Once the session's `calls`-th summary call came and its preparations ended: exactly `calls` were
 * made, the newest summarizing `added`'s turn and not `before`'s (a top-up, never from the start),
 * and the prepared range covers `events` events. The newest call, for more checks.
 */
async function expectNewestTopUp(
  id: string,
  tag: string,
  expected: { calls: number; added: string; before: string; events: number },
) {
  await untilUpstreamReceived(tag, expected.calls)
  await settled(id, tag)
  const requests = await upstreamRequests(tag)
  expect(requests).toHaveLength(expected.calls)
  const newest = requests.at(-1)!
  expect(conversationOf(newest)).toContain(expected.added)
  expect(conversationOf(newest)).not.toContain(expected.before)
  expect((await context(id)).prepared.covers.events).toBe(expected.events)
  return newest
}

describe('prepared summaries (round4 §6)', () => {
  it('are prepared after the answer once the view passes the mark: of what the policy’s pass would cover now and with the next message', async () => {
    const { id, tag } = await preparedSession()
    // Four turns, the newest two kept: a pass now covers the first two; with the next message, three.
    const [now, next] = await upstreamRequests(tag)
    expect(conversationOf(now!)).toContain('question 2')
    expect(conversationOf(now!)).not.toContain('question 3')
    expect(conversationOf(next!)).toContain('question 3')
    expect(conversationOf(next!)).not.toContain('question 2')
    expect((await context(id)).prepared).toMatchObject({ state: 'ready', covers: { events: 6 } })
  })

  it('a pass asked for takes it without calling the summary model; its boundary says so', async () => {
    const { id, tag } = await preparedSession()
    const compacted = await call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    expect(compacted.status, compacted.text).toBe(200)
    expect(compacted.body.boundary.boundary.prepared).toBe(true)
    expect(compacted.body.covered.map((e: { id: string }) => e.id)).toEqual(['q1', 'a1', 'q2', 'a2'])
    // The summary calls are the preparation's: the pass made none (a held one would not have answered).
    expect(await upstreamRequests(tag)).toHaveLength(2)
    expect((await context(id)).prepared.state).toBe('stale')
  })

  it('the pass after the next turn takes the one prepared for the next message', async () => {
    const { id, tag } = await preparedSession()
    const compacted = await turn(id, {
      content: 'question 5',
      model: 'echo',
      compaction: { trigger: { always: true }, strategy: policyHeldBy(tag).strategy },
    })
    expect(compacted.status, compacted.text).toBe(200)
    expect(compacted.body.compaction.boundary.boundary.prepared).toBe(true)
    expect(compacted.body.compaction.covered.map((e: { id: string }) => e.id)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3'])
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('is topped up from the previous one and the turn since, never from the start', async () => {
    const { id, tag } = await preparedSession()
    expect((await turn(id, { content: 'question 5', model: 'echo' })).status).toBe(200)
    // What a pass covers now was prepared for the next message already: one call, for the new next.
    const newest = await expectNewestTopUp(id, tag, { calls: 3, added: 'question 4', before: 'question 3', events: 8 })
    expect(newest.body.messages.find((m) => m.role === 'user')!.content).toContain('Previous summary:')
  })

  it('asks for no summary while an agent loop goes on in the newest turn; once the turn ends, the next message’s is topped up', async () => {
    const { id, tag } = await preparedSession()
    const tool = { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }
    let answered = await turn(id, { content: 'question 5', model: 'loop-3', tools: [tool] })
    for (let step = 1; step <= 3; step++) {
      expect(answered.body.status, answered.text).toBe('requires_action')
      // A preparation would have started with the answer, and would wait at the held summary model.
      expect((await context(id)).preparing, `after step ${step - 1}`).toBe(false)
      const [pending] = answered.body.toolCalls
      answered = await turn(id, { model: 'loop-3', tools: [tool], toolResults: [{ id: pending.id, data: `file ${step}` }] })
    }
    expect(answered.body.status, answered.text).toBe('completed')
    // Four turns before the next message: the pass with it keeps the loop's and the new one, covers q1 … a4.
    await expectNewestTopUp(id, tag, { calls: 3, added: 'question 4', before: 'question 5', events: 8 })
  })

  it('a turn that ends while one runs has its own once that one ends, on the view it left', async () => {
    const { id, tag } = await preparedSession()
    expect((await turn(id, { content: 'question 5', model: 'echo' })).status).toBe(200)
    await untilUpstreamReceived(tag, 3)
    // Held at the summary model: the next turn ends while it runs.
    expect((await turn(id, { content: 'question 6', model: 'echo' })).status).toBe(200)
    expect((await context(id)).preparing).toBe(true)
    await releaseUpstream(tag)
    // The one queued tops up what the one before prepared with question 5's turn (not question 4's again).
    await expectNewestTopUp(id, tag, { calls: 4, added: 'question 5', before: 'question 4', events: 10 })
  })

  it('counts its summary call in the session’s usage, used or not', async () => {
    const { id } = await preparedSession()
    expect((await context(id)).usage.summaryTokens).toBeGreaterThan(0)
  })

  it('is not used once a rewind took the view back into its range: the pass summarizes afresh', async () => {
    const { id, tag } = await preparedSession()
    const rewound = await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'a1', position: 'at' } })
    expect(rewound.status, rewound.text).toBe(200)
    await append(id, [user('question 2b', 'q2b'), assistant('answer 2b', 'a2b'), user('question 3b'), assistant('answer 3b')])
    expect((await context(id)).prepared.state).toBe('stale')
    const compacting = call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    await untilUpstreamReceived(tag, 3)
    await releaseUpstream(tag)
    const compacted = await compacting
    expect(compacted.status, compacted.text).toBe(200)
    expect(compacted.body.boundary.boundary.prepared).toBeUndefined()
    // Three turns in view, two kept: the pass covers q1 a1, which no prepared summary (q1 … a2, q1 … a3) matches.
    expect(compacted.body.covered.map((e: { id: string }) => e.id)).toEqual(['q1', 'a1'])
    expect(conversationOf((await upstreamRequests(tag))[2]!)).not.toContain('question 2')
  })

  it('is not used once an event of its range is pinned: the pass never summarizes what it keeps', async () => {
    const { id, tag } = await preparedSession()
    expect((await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: ['a1'] } })).status).toBeLessThan(300)
    expect((await context(id)).prepared.state).toBe('stale')
    const compacting = call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    await untilUpstreamReceived(tag, 3)
    await releaseUpstream(tag)
    const compacted = await compacting
    expect(compacted.body.boundary.boundary.prepared).toBeUndefined()
    expect(conversationOf((await upstreamRequests(tag))[2]!)).not.toContain('answer 1')
  })

  it('is not used after the pass it followed was undone', async () => {
    const { id, tag } = await preparedSession()
    const first = await call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    expect(first.body.boundary.boundary.prepared).toBe(true)
    const undone = await call('POST', `/v1/sessions/${id}/compactions/${first.body.boundary.id}/undo`, { body: {} })
    expect(undone.status, undone.text).toBeLessThan(300)
    // The view is the one before the pass again; the prepared summary rolled in no prior summary and
    // covers its start, so it is ready again, and a new pass may take it.
    expect((await context(id)).prepared.state).toBe('ready')
    const again = await call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    expect(again.body.boundary.boundary.prepared).toBe(true)
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('a preparation that ends after its session was deleted keeps nothing', async () => {
    const tag = newTag()
    const id = newSessionId('prep')
    expect((await call('POST', '/v1/sessions', { body: { id, policy: policyHeldBy(tag) } })).status).toBe(201)
    await append(
      id,
      [1, 2, 3].flatMap((i) => [user(`question ${i}`), assistant(`answer ${i}`)]),
    )
    expect((await turn(id, { content: 'question 4', model: 'echo' })).status).toBe(200)
    await untilUpstreamReceived(tag, 1)
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    // The same id again: a new session, with no prepared summary of the old one's.
    expect((await call('POST', '/v1/sessions', { body: { id } })).status).toBe(201)
    await settled(id, tag)
    expect((await context(id)).prepared).toBeNull()
    expect(await ids(id)).toEqual([])
  })
})

describe('prepared summaries under faults', () => {
  it('the object aborted during a top-up: the log untouched, the summary prepared before still ready, the next turn prepares again', async () => {
    const { id, tag } = await preparedSession()
    const before = await wholeLog(id)
    const ready = (await context(id)).prepared
    expect((await turn(id, { content: 'question 5', model: 'echo' })).status).toBe(200)
    await untilUpstreamReceived(tag, 3)
    await abortAllDurableObjects()
    await releaseUpstream(tag) // answered to no one
    const after = await context(id)
    expect(after.preparing).toBe(false)
    // The turn is in the log; nothing of the lost top-up is.
    expect((await wholeLog(id)).length).toBe(before.length + 2)
    expect(after.prepared).toEqual(ready)
    expect((await turn(id, { content: 'question 6', model: 'echo' })).status).toBe(200)
    await untilUpstreamReceived(tag, 4)
    await settled(id, tag)
    expect((await context(id)).prepared.covers.events).toBe(10)
    await expectWholeLog(id)
  })

  it('the object aborted while a pass that took one waits for the rest’s summary: no boundary; the pass asked again takes it', async () => {
    const { id, tag } = await preparedSession()
    await append(id, [user('question 5'), assistant('answer 5'), user('question 6'), assistant('answer 6')])
    // Six turns, two kept: the prepared one covers the first three; the fourth is summarized on from it.
    const pending = call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    await untilUpstreamReceived(tag, 3)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    expect((await wholeLog(id)).every((event) => event.type === 'MESSAGE')).toBe(true)
    expect((await context(id)).prepared.state).toBe('ready')
    const again = call('POST', `/v1/sessions/${id}/compact`, { body: {} })
    await untilUpstreamReceived(tag, 4)
    await releaseUpstream(tag)
    const compacted = await again
    expect(compacted.body.boundary.boundary.prepared).toBe(true)
    expect(compacted.body.covered).toHaveLength(8)
    await expectWholeLog(id)
  })
})
