import { afterAll, describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectError,
  expectEveryLogWhole,
  newSessionId,
  newTag,
  numberedTurns,
  system,
  turn,
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const viewIds = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id)
const sentMessages = async (tag: string) =>
  (await upstreamRequests(tag)).map((request) => request.body.messages.map((m: { content: string | null }) => m.content))

const conversation = (turns: number) => numberedTurns(turns, 'edit')

describe('an edit: a turn with rewind', () => {
  it('runs on the view as of the point and writes the REWIND with the turn, in one append', async () => {
    const id = await conversation(3)
    const tag = newTag()
    const result = await turn(id, {
      content: 'question 2, edited',
      rewind: { to: 'u2', position: 'before' },
      model: `echo#${tag}`,
      compaction: false,
    })
    expect(result.status, result.text).toBe(200)
    // The model saw the conversation up to the edited message, then the edit.
    expect(await sentMessages(tag)).toEqual([['Be brief.', 'question 1', 'answer 1', 'question 2, edited']])
    const [rewind, question, reply] = result.body.events
    expect(result.body.events).toHaveLength(3)
    expect(rewind).toMatchObject({ type: 'REWIND', seq: 8, rewind: { to: 'u2', position: 'before', reason: 'edit' } })
    expect(rewind.boundary).toMatchObject({ preserved: ['S1', 'u1', 'a1'], coveredEventCount: 4 })
    expect(question).toMatchObject({ seq: 9, message: { content: 'question 2, edited' } })
    expect(reply).toMatchObject({ seq: 10, message: { content: 'Echo: question 2, edited' } })
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', question.id, reply.id])
    // Nothing deleted: the old turns are still in the log, abandoned.
    expect((await wholeLog(id)).map((e: { id: string }) => e.id).slice(0, 7)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2', 'u3', 'a3'])
  })

  it('when the restored view must be compacted to fit, writes the REWIND with that pass, ahead of the turn', async () => {
    // echo#small has a 2048-token context (vitest.config.ts): the three long turns do not fit it.
    const id = newSessionId('edit')
    const long = 'plenty of words in this sentence '.repeat(70)
    for (let i = 1; i <= 3; i++) await append(id, [user(`${long} ${i}`, `u${i}`), assistant(`answer ${i}`, `a${i}`)])
    await append(id, [user('short', 'u4'), assistant('short answer', 'a4')])
    const result = await turn(id, {
      content: 'short, edited',
      rewind: { to: 'u4', position: 'before' },
      model: 'echo#small',
      compaction: { trigger: { tokenCount: 1_000_000_000 }, strategy: { window: { lastTurns: 1 } } },
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.context.compactions).toHaveLength(1)
    const log = await wholeLog(id)
    // The REWIND, then the pass that made room on the restored view, then the turn.
    expect(log.slice(8).map((e: { type: string }) => e.type)).toEqual(['REWIND', 'COMPACTION', 'MESSAGE', 'MESSAGE'])
    // The pass worked on the restored view (u4 and a4 were no longer in it); the edit counts as its newest turn.
    expect(result.body.context.compactions[0].covered.map((e: { id: string }) => e.id)).toEqual([
      'u1',
      'a1',
      'u2',
      'a2',
      'u3',
      'a3',
    ])
    expect(await viewIds(id)).toEqual([log[10].id, log[11].id])
  })

  it('writes nothing when the model fails: the view and the log as they were', async () => {
    const id = await conversation(2)
    const before = await wholeLog(id)
    const failed = await turn(id, {
      content: 'question 2, edited',
      rewind: { to: 'u2', position: 'before' },
      model: 'fail-500',
      compaction: false,
    })
    expect(failed.status).toBe(502)
    expect(await wholeLog(id)).toEqual(before)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
  })

  it('is retried by its user event’s id like any turn: the stored result, one REWIND in the log', async () => {
    const id = await conversation(2)
    const body = { id: 'edit-1', content: 'question 2, edited', rewind: { to: 'u2', position: 'before' }, compaction: false }
    const first = await turn(id, body)
    const again = await turn(id, body)
    expect(again.body.reply).toEqual(first.body.reply)
    expect(again.body.events).toEqual(first.body.events)
    expect((await wholeLog(id)).filter((e: { type: string }) => e.type === 'REWIND')).toHaveLength(1)
  })

  it('refuses a point that is no message (400 naming rewind.to), and rewind without content', async () => {
    const id = await conversation(1)
    const unknown = await turn(id, { content: 'x', rewind: { to: 'nope' } })
    expectError(unknown, 400, 'invalid_request')
    expect(unknown.body.error.message).toBe('rewind.to: no event "nope" in this session')
    const alone = await turn(id, { toolResults: [{ id: 'c', data: 'r' }], rewind: { to: 'u1' } })
    expectError(alone, 400, 'invalid_request')
    expect(alone.body.error.message).toMatch(/^rewind: goes only with content/)
    expect(await wholeLog(id)).toHaveLength(3)
  })
})

describe('a regenerate', () => {
  it('answers the newest turn’s user message again: its old reply leaves the view with one REWIND, written with the new reply', async () => {
    const id = await conversation(2)
    const tag = newTag()
    const result = await turn(id, { regenerate: true, model: `echo#${tag}`, compaction: false })
    expect(result.status, result.text).toBe(200)
    expect(await sentMessages(tag)).toEqual([['Be brief.', 'question 1', 'answer 1', 'question 2']])
    const [rewind, reply] = result.body.events
    expect(result.body.events).toHaveLength(2)
    expect(rewind).toMatchObject({
      type: 'REWIND',
      rewind: { to: 'u2', position: 'at', reason: 'regenerate' },
      boundary: { coveredEventCount: 1 },
    })
    expect(reply).toMatchObject({ message: { role: 'assistant', content: 'Echo: question 2' } })
    expect(result.body.reply).toEqual(reply)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2', reply.id])
    // Regenerating again takes this reply out in turn; the first one stays abandoned.
    const again = await turn(id, { regenerate: true, compaction: false })
    expect(again.body.events[0].boundary.coveredEventCount).toBe(1)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2', again.body.reply.id])
  })

  it('takes a whole tool loop out of the view, back to its user message', async () => {
    const id = newSessionId('regen')
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }]
    const called = await turn(id, { content: 'look it up', model: 'agent-c1', tools, compaction: false })
    expect(called.body.status, called.text).toBe('requires_action')
    const done = await turn(id, {
      toolResults: [{ id: called.body.toolCalls[0].id, data: 'found' }],
      model: 'agent-c1',
      tools,
    })
    expect(done.body.reply.message.content).toBe('Results: found')
    const result = await turn(id, { regenerate: true, compaction: false })
    expect(result.body.events[0].boundary.coveredEventCount).toBe(3) // the call, its result, the reply
    expect(
      (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { message: { content: string } }) => e.message.content),
    ).toEqual(['look it up', 'Echo: look it up'])
  })

  it('is retried by its id (the REWIND’s): the stored result, the model not called again', async () => {
    const id = await conversation(1)
    const tag = newTag()
    const first = await turn(id, { id: 'regen-1', regenerate: true, model: `echo#${tag}`, compaction: false })
    expect(first.body.events[0].id).toBe('regen-1')
    const again = await turn(id, { id: 'regen-1', regenerate: true, model: `echo#${tag}`, compaction: false })
    expect(again.body.reply).toEqual(first.body.reply)
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expectError(await turn(id, { id: 'u1', regenerate: true }), 409, 'id_conflict')
  })

  it('409 nothing_to_regenerate with no turn, or no reply yet; 400 with content', async () => {
    const empty = newSessionId('regen')
    await append(empty, [system('Be brief.')])
    expectError(await turn(empty, { regenerate: true }), 409, 'nothing_to_regenerate')
    const unanswered = newSessionId('regen')
    await append(unanswered, [user('hello?')])
    const result = await turn(unanswered, { regenerate: true })
    expectError(result, 409, 'nothing_to_regenerate')
    expect(result.body.error.message).toBe('the newest turn has no reply to regenerate yet')
    const mixed = await turn(unanswered, { regenerate: true, content: 'x' })
    expectError(mixed, 400, 'invalid_request')
    expect(mixed.body.error.message).toMatch(/^content: does not go with regenerate/)
    expect(await wholeLog(unanswered)).toHaveLength(1)
  })
})
