import { runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { sessionStub } from '../../src/object/address'
import { append, assistant, call, expectError, newSessionId, newTag, turn, upstreamRequests, user } from '../helpers'

// The code's clock an hour ahead: the hand-over a write sets waits for the test to run it.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() + 3600_000)
})
afterEach(() => vi.useRealTimers())

/** Another session of alice's holding a fact, handed over to the search across sessions. */
async function otherSessionWith(fact: string) {
  const id = newSessionId('other')
  await call('POST', '/v1/sessions', { body: { id, title: 'Infra notes' } })
  await append(id, [user(fact, `${id}-fact`), assistant('Noted.')])
  expect(await runDurableObjectAlarm(sessionStub(env, 'alice', id))).toBe(true)
  return id
}

type Hit = { id: string; text: string; sessionId?: string; sessionTitle?: string | null }
const hitsOf = (result: { body: { events: { message: { toolResponses?: { data: string }[] } }[] } }) =>
  JSON.parse(result.body.events[2]!.message.toolResponses![0]!.data).hits as Hit[]

describe('recall across sessions', () => {
  it('with recall { sessions: "all" }, recall_history takes scope all_sessions and its hits name their session', async () => {
    const word = `cobalt${Date.now().toString(36)}`
    const other = await otherSessionWith(`The staging database password hint is ${word}.`)
    const id = newSessionId('asker')
    await append(id, [user('Hello'), assistant('Hi')])
    const tag = newTag()
    const result = await turn(id, {
      content: 'What was the password hint?',
      model: `recallall-${word} hint#${tag}`,
      recall: { sessions: 'all' },
    })
    expect(result.status, result.text).toBe(200)
    const hits = hitsOf(result)
    expect(hits[0]).toMatchObject({ id: `${other}-fact`, sessionId: other, sessionTitle: 'Infra notes' })
    expect(hits[0]!.text).toContain(word)
    expect(result.body.reply.message.content).toContain(word)
    // The tool was offered with its scope.
    const offered = (await upstreamRequests(tag))[0]!.body as unknown as {
      tools: { function: { parameters: { properties: object } } }[]
    }
    expect(Object.keys(offered.tools[0]!.function.parameters.properties)).toContain('scope')
  })

  it('leaves out what the asking session’s view shows, and finds its covered events', async () => {
    const word = `amber${Date.now().toString(36)}`
    const id = newSessionId('self')
    await append(id, [
      user(`Old note: ${word} is the vault word`, 'old'),
      assistant('ok'),
      user(`In view: ${word} again`, 'new'),
      assistant('ok'),
    ])
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
    expect(await runDurableObjectAlarm(sessionStub(env, 'alice', id))).toBe(true)
    const result = await turn(id, { content: 'The vault word?', model: `recallall-${word}`, recall: { sessions: 'all' } })
    const ids = hitsOf(result).map((hit) => hit.id)
    expect(ids).toContain('old')
    expect(ids).not.toContain('new')
  })

  it('with recall: true the tool has no scope, and a call asking for all sessions searches this one alone', async () => {
    const word = `jade${Date.now().toString(36)}`
    await otherSessionWith(`The ${word} code is elsewhere`)
    const id = newSessionId('single')
    await append(id, [user('Hello'), assistant('Hi')])
    const tag = newTag()
    const result = await turn(id, { content: 'Code?', model: `recallall-${word}#${tag}`, recall: true })
    expect(hitsOf(result)).toEqual([])
    const offered = (await upstreamRequests(tag))[0]!.body as unknown as {
      tools: { function: { parameters: { properties: object } } }[]
    }
    expect(Object.keys(offered.tools[0]!.function.parameters.properties)).not.toContain('scope')
  })

  it('X-Recall: all on a door offers the same', async () => {
    const word = `onyx${Date.now().toString(36)}`
    const other = await otherSessionWith(`Deploy key name: ${word}`)
    const tag = newTag()
    const result = await call('POST', '/v1/chat/completions', {
      headers: { 'X-Session-Id': newSessionId('door'), 'X-Recall': 'all' },
      body: { model: `recallall-${word}#${tag}`, messages: [{ role: 'user', content: 'Which deploy key?' }] },
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.choices[0].message.content).toContain(other)
  })

  it('400s a recall it does not know, naming it', async () => {
    const result = await turn(newSessionId(), { content: 'x', recall: { sessions: 'everyone' } })
    expectError(result, 400, 'invalid_request')
    expect(result.body.error.message).toContain('recall')
  })
})
