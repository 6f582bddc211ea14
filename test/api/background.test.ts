import { exports } from 'cloudflare:workers'
import { afterAll, describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectEveryLogWhole,
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

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const complete = (session: string, messages: unknown[], model = 'echo') =>
  call('POST', '/v1/chat/completions', { body: { model, messages }, headers: { 'X-Session-Id': session } })
const context = async (id: string) => (await call('GET', `/v1/sessions/${id}/context`)).body
const idle = (id: string) => until(async () => !(await context(id)).compacting, 'the background pass to end')
const summaries = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/view`)).body.events.filter((e: { synthetic: boolean }) => e.synthetic)

/** A policy whose pass fires on every turn, keeps the newest turn and summarizes the rest with `model`. */
const everyTurn = (model: string, extra: Record<string, unknown> = {}) => ({
  trigger: { always: true },
  strategy: { window: { lastTurns: 1 }, summarizer: { model } },
  ...extra,
})

async function sessionWith(policy: unknown, turns = 2) {
  const id = newSessionId('bg')
  expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
  await append(id, Array.from({ length: turns }, (_, i) => [user(`question ${i + 1}`), assistant(`answer ${i + 1}`)]).flat())
  return id
}

describe('background passes', () => {
  it('a door answers before its pass’s summary comes; turns that fit go on meanwhile; the pass then rebases onto them', async () => {
    const tag = newTag()
    const id = await sessionWith(everyTurn(`hold#${tag}`))
    const history = [
      { role: 'user', content: 'question 1' },
      { role: 'assistant', content: 'answer 1' },
      { role: 'user', content: 'question 2' },
      { role: 'assistant', content: 'answer 2' },
    ]
    const first = await complete(id, [...history, { role: 'user', content: 'question 3' }])
    expect(first.status, first.text).toBe(200)
    // Answered while the summary request is held at the upstream: the pass runs after the answer.
    await untilUpstreamReceived(tag)
    expect((await context(id)).compacting).toBe(true)
    expect(await summaries(id)).toEqual([])
    // Another turn that fits goes on; its own pass starts none while one runs.
    const second = await complete(id, [
      ...history,
      { role: 'user', content: 'question 3' },
      { role: 'assistant', content: 'Echo: question 3' },
      { role: 'user', content: 'question 4' },
    ])
    expect(second.status, second.text).toBe(200)
    expect(await releaseUpstream(tag)).toBe(1)
    await idle(id)
    // The pass covered what it planned; question 4 and its reply, written meanwhile, joined its preserved list.
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events
    expect(view.filter((e: { synthetic: boolean }) => e.synthetic)).toHaveLength(2)
    expect(
      view.filter((e: { synthetic: boolean }) => !e.synthetic).map((e: { message: { content: string } }) => e.message.content),
    ).toEqual(['question 3', 'Echo: question 3', 'question 4', 'Echo: question 4'])
    expect((await upstreamRequests(tag)).length).toBe(1)
    expectNothingLost(await wholeLog(id))
    expect((await context(id)).lastCompactionError).toBeNull()
  })

  it('a rewind written while the pass waits for its summary wins: the pass writes nothing', async () => {
    const tag = newTag()
    const id = await sessionWith(everyTurn(`hold#${tag}`, { background: true }), 3)
    const result = await turn(id, { content: 'question 4' })
    expect(result.body.compactionScheduled).toBe(true)
    await untilUpstreamReceived(tag)
    const version = (await context(id)).events.log
    const back = await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: result.body.reply.id, position: 'before' } })
    expect(back.status, back.text).toBe(200)
    await releaseUpstream(tag)
    await idle(id)
    expect((await context(id)).events.log).toBe(version + 1) // the REWIND only
    expect((await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions).toEqual([])
    expect((await context(id)).lastCompactionError).toBeNull()
  })

  it('/turns waits for its pass by default; with background: true it answers first, compactionScheduled, compaction null', async () => {
    const id = await sessionWith(everyTurn('echo'))
    const inTurn = await turn(id, { content: 'question 3' })
    expect(inTurn.body).toMatchObject({ compactionScheduled: false, compaction: { unchanged: false } })
    const tag = newTag()
    const later = await turn(id, { content: 'question 4', compaction: everyTurn(`hold#${tag}`, { background: true }) })
    expect(later.status, later.text).toBe(200)
    expect(later.body).toMatchObject({ compactionScheduled: true, compaction: null })
    await untilUpstreamReceived(tag)
    expect((await context(id)).compacting).toBe(true)
    await releaseUpstream(tag)
    await idle(id)
    const compactions = (await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions
    expect(compactions).toHaveLength(2)
  })

  it('a /turns turn whose own pass would run while a background pass runs waits for that pass (streamed, saying so), then looks at its trigger again', async () => {
    const tag = newTag()
    const id = await sessionWith(everyTurn(`hold#${tag}`, { background: true }))
    expect((await turn(id, { content: 'question 3' })).body.compactionScheduled).toBe(true)
    await untilUpstreamReceived(tag)
    // Its own pass (in the turn, a window of two turns, its summary tagged apart) waits for the background one.
    const own = newTag()
    const response = await exports.default.fetch(
      new Request(`https://sessions.test/v1/sessions/${id}/turns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          content: 'question 4',
          stream: true,
          compaction: { trigger: { always: true }, strategy: { window: { lastTurns: 2 }, summarizer: { model: `echo#${own}` } } },
        }),
      }),
    )
    const reader = sseReader(response)
    await reader.until((frames) => frames.some((frame) => frame.event === 'compacting'))
    expect(await upstreamRequests(own)).toHaveLength(0)
    await releaseUpstream(tag)
    const done = (await reader.rest()).find((frame) => frame.event === 'done')
    // The background pass left question 3 and 4 with a summary: a window of two turns has nothing more to cover.
    expect(done?.data.compaction).toMatchObject({ unchanged: true })
    expect(await upstreamRequests(own)).toHaveLength(0)
    expect((await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions).toHaveLength(1)
  })

  it('schedules nothing when the trigger does not fire', async () => {
    const id = await sessionWith({ ...everyTurn('echo', { background: true }), trigger: { turnCount: 50 } })
    const result = await turn(id, { content: 'question 3' })
    expect(result.body).toMatchObject({ compactionScheduled: false, compaction: null })
    expect((await context(id)).compacting).toBe(false)
  })

  it('a failed background pass never fails the turn: /context reports it until a pass succeeds', async () => {
    const id = await sessionWith(everyTurn('fail-500', { background: true }))
    const result = await turn(id, { content: 'question 3' })
    expect(result.status, result.text).toBe(200)
    expect(result.body.compactionScheduled).toBe(true)
    await idle(id)
    const failed = (await context(id)).lastCompactionError
    expect(failed).toMatchObject({ error: { code: 'upstream_error' } })
    expect(Date.parse(failed.at)).not.toBeNaN()
    expect(await summaries(id)).toEqual([])
    await turn(id, { content: 'question 4', compaction: everyTurn('echo', { background: true }) })
    await idle(id)
    expect((await context(id)).lastCompactionError).toBeNull()
    expect(await summaries(id)).toHaveLength(2)
  })

  it('a turn that needs room waits for the running pass and checks its fit again, running none of its own', async () => {
    const tag = newTag()
    const policy = everyTurn(`hold#${tag}`, { background: true })
    const id = newSessionId('bg')
    const long = (i: number) => `${i}: ${'lorem ipsum dolor sit amet '.repeat(75)}`
    await append(id, Array.from({ length: 5 }, (_, i) => [user(long(i)), assistant(long(i))]).flat())
    const small = await turn(id, { content: 'a small question', compaction: policy })
    expect(small.body.compactionScheduled).toBe(true)
    await untilUpstreamReceived(tag)
    // This one does not fit beside the history: streamed, it says when it waits for the pass.
    const big = await exports.default.fetch(
      new Request(`https://sessions.test/v1/sessions/${id}/turns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'lorem ipsum dolor sit amet '.repeat(600), compaction: policy, stream: true }),
      }),
    )
    expect(big.status).toBe(200)
    const reader = sseReader(big)
    await reader.until((frames) => frames.some((frame) => frame.event === 'compacting'))
    await releaseUpstream(tag)
    const frames = await reader.rest()
    const done = frames.find((frame) => frame.event === 'done')
    expect(done, JSON.stringify(frames).slice(0, 300)).toBeDefined()
    // It waited for the background pass, which made room: it ran none of its own; its policy's pass runs after it.
    expect(done!.data.context.compactions).toEqual([])
    expect(done!.data.compactionScheduled).toBe(true)
    await untilUpstreamReceived(tag, 2)
    await releaseUpstream(tag)
    await idle(id)
    expect(await summaries(id)).toHaveLength(2)
  })
})
