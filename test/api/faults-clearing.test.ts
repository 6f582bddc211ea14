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
  untilUpstreamReceived,
  user,
} from '../helpers'
import { a, send, text, u } from '../support/messages-door'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const readFile = { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }
const fileText = (step: number) =>
  Array.from({ length: 400 }, (_, i) => `w${(step * 7 + i) % 997}`)
    .join(' ')
    .slice(0, 2048)

/**
 * A session of a plain turn (Q0, A0), then an agent's loop through the Messages door: the fake
 * `loop-3` model reads three files, then answers. Answers the history as the client holds it.
 */
async function loopSession(id: string) {
  await append(id, [user('Q0'), assistant('A0')])
  const model = `loop-3#${newTag()}`
  const messages: unknown[] = [u('Q0'), a([text('A0')]), u('Read every file and report.')]
  for (let step = 1; step <= 4; step++) {
    const answer = await send(id, { model, tools: [readFile], messages })
    expect(answer.status, answer.text).toBe(200)
    messages.push(a(answer.body.content))
    if (step <= 3) messages.push(u([{ type: 'tool_result', tool_use_id: `step_${step}`, content: fileText(step) }]))
  }
  return messages
}

const clearedCalls = (events: any[]) =>
  events
    .filter((e) => e.type === 'COMPACTION')
    .at(-1)
    ?.boundary.cleared?.flatMap((entry: { callIds: string[] }) => entry.callIds)

describe('the object killed during a clearing pass', () => {
  it('a pass that clears, then waits for its summary: nothing is written, no result is cleared, and the pass runs again whole', async () => {
    const id = newSessionId('clear')
    await loopSession(id)
    const before = (await call('GET', `/v1/sessions/${id}/view`)).body
    const tag = newTag()
    const strategy = (model: string) => ({ clearToolResults: { keep: 1 }, window: { lastTurns: 1 }, summarizer: { model } })
    const pending = call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: strategy(`hold#${tag}`) } })
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    // Not half a pass: the results the clearing had planned are whole in the view, no boundary written.
    expect((await call('GET', `/v1/sessions/${id}/view`)).body).toEqual(before)
    expect((await expectWholeLog(id)).events.every((e) => e.type === 'MESSAGE')).toBe(true)
    const again = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: strategy(`echo#${newTag()}`) } })
    expect(again.status, again.text).toBe(200)
    expect(again.body.unchanged).toBe(false)
    const { events, covered } = await expectWholeLog(id)
    expect(clearedCalls(events)).toEqual(['step_1', 'step_2'])
    expect(events.filter((e) => e.type === 'COMPACTION')).toHaveLength(1)
    expect([...covered].map((eid) => events.find((e) => e.id === eid).message.content)).toEqual(['Q0', 'A0'])
  })

  it('a Messages request whose clear_tool_uses edit ran and whose compact_20260112 waits for its summary: the clearing stands, whole; the client’s retry answers once, its question stored once, nothing cleared twice', async () => {
    const id = newSessionId('clear')
    const tag = newTag()
    const policy = (model: string) => ({
      trigger: { turnCount: 1000 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model } },
    })
    expect((await call('POST', '/v1/sessions', { body: { id, policy: policy(`hold#${tag}`) } })).status).toBe(201)
    const history = await loopSession(id)
    const request = {
      model: `echo#${newTag()}`,
      tools: [readFile],
      messages: [...history, u('Next')],
      context_management: {
        edits: [
          {
            type: 'clear_tool_uses_20250919',
            trigger: { type: 'input_tokens', value: 100 },
            keep: { type: 'tool_uses', value: 1 },
          },
          { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 100 } },
        ],
      },
    }
    const pending = send(id, request)
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    // The clearing is a pass of its own, written before the summary was asked for: it stands, whole
    // (every message kept); the question is not stored.
    const killed = (await expectWholeLog(id)).events
    expect(killed.some((e) => e.message?.content === 'Next')).toBe(false)
    expect(killed.filter((e) => e.type === 'COMPACTION')).toHaveLength(1)
    expect(clearedCalls(killed)).toEqual(['step_1', 'step_2'])
    expect(killed.at(-1).boundary.coveredEventCount).toBe(0)
    // The client retries the same request; the summary model now answers.
    expect((await call('PATCH', `/v1/sessions/${id}`, { body: { policy: policy(`echo#${newTag()}`) } })).status).toBe(200)
    const retried = await send(id, request)
    expect(retried.status, retried.text).toBe(200)
    expect(retried.body.content.at(-1)).toEqual(text('Echo: Next'))
    const { events } = await expectWholeLog(id)
    expect(events.filter((e) => e.message?.content === 'Next')).toHaveLength(1)
    expect(events.filter((e) => e.message?.role === 'tool')).toHaveLength(3)
    // The retry clears nothing again (its clearing is in force); its summarizing pass covers all before the question.
    const passes = events.filter((e) => e.type === 'COMPACTION')
    expect(passes).toHaveLength(2)
    expect(passes[1].boundary.cleared).toBeUndefined()
    expect(passes[1].boundary.coveredEventCount).toBe(killed.filter((e) => e.type === 'MESSAGE').length)
  })
})
