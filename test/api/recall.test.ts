import { describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectError,
  newSessionId,
  newTag,
  turn,
  type UpstreamRequest,
  upstreamRequests,
  user,
  wholeLog,
} from '../helpers'

/** A session whose early turn (the launch code) is covered, its newer turns in view. */
async function withCoveredFact() {
  const id = newSessionId()
  await append(id, [user('Remember: the launch code is tangerine-4242.', 'fact'), assistant('Noted.', 'noted')])
  await append(id, [user('What about lunch?'), assistant('Pasta.')])
  await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
  return id
}
/** The usage the fake upstream reported for these calls, summed. */
function reportedUsage(sent: UpstreamRequest[]) {
  const sum = (field: 'prompt_tokens' | 'completion_tokens' | 'total_tokens') => sent.reduce((n, r) => n + r.usage![field], 0)
  return { promptTokens: sum('prompt_tokens'), completionTokens: sum('completion_tokens'), totalTokens: sum('total_tokens') }
}
const roles = (events: { message: { role: string } }[]) => events.map((e) => e.message.role)
const weather = { type: 'function', function: { name: 'get_weather' } }

describe('recall: the model may look up what compaction hid', () => {
  it('runs recall_history against the covered events, stores the call and its result, calls the model again', async () => {
    const id = await withCoveredFact()
    const tag = newTag()
    const result = await turn(id, { content: 'What was the code?', model: `recall-launch code#${tag}`, recall: true })
    expect(result.status, result.text).toBe(200)
    expect(roles(result.body.events)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const [, asked, found, reply] = result.body.events
    expect(asked.message.toolCalls[0]).toMatchObject({ name: 'recall_history', id: expect.stringMatching(/^call_/) })
    const data = JSON.parse(found.message.toolResponses[0].data)
    expect(data.hits).toEqual([{ id: 'fact', seq: 1, role: 'user', text: 'Remember: the launch code is tangerine-4242.' }])
    expect(reply.message.content).toContain('tangerine-4242')
    expect(result.body).toMatchObject({ status: 'completed', toolCalls: [] })
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(2)
    // Offered with the client's tools (none here); the second call carries the call and its result.
    expect((sent[0]!.body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name)).toEqual([
      'recall_history',
    ])
    expect(sent[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: asked.message.toolCalls[0].id })
    // Usage is the sum of what the upstream reported for the request's two model calls.
    expect(result.body.usage).toEqual(reportedUsage(sent))
    expect((await wholeLog(id)).slice(-4).map((e) => e.id)).toEqual(result.body.events.map((e: { id: string }) => e.id))
  })

  it('finds only what compaction hid: a fact still in view is not a hit', async () => {
    const id = await withCoveredFact()
    const result = await turn(id, { content: 'Lunch?', model: 'recall-pasta', recall: true })
    expect(JSON.parse(result.body.events[2].message.toolResponses[0].data)).toEqual({ hits: [] })
  })

  it('is not offered without recall: true, and a client tool of that name is a 400 while it is on', async () => {
    const id = await withCoveredFact()
    const tag = newTag()
    const plain = await turn(id, { content: 'Code?', model: `recall-code#${tag}` })
    expect(roles(plain.body.events)).toEqual(['user', 'assistant'])
    expect((await upstreamRequests(tag))[0]!.body).not.toHaveProperty('tools')
    const mine = { type: 'function', function: { name: 'recall_history' } }
    const refused = await turn(id, { content: 'Code?', tools: [mine], recall: true })
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toContain('tools[0].function.name')
    expect((await turn(id, { content: 'Code?', tools: [mine], model: 'echo' })).status).toBe(200)
  })

  it('runs at most 3 rounds, then calls the model once more without the tool', async () => {
    const id = await withCoveredFact()
    const tag = newTag()
    const result = await turn(id, { content: 'Keep looking', model: `recallloop-code#${tag}`, recall: true })
    expect(roles(result.body.events)).toEqual(['user', ...Array(3).fill(['assistant', 'tool']).flat(), 'assistant'])
    expect(result.body.reply.message.content).toBe('Done after 3 recalls')
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(4)
    const offered = sent.map((r) =>
      ((r.body as { tools?: { function: { name: string } }[] }).tools ?? []).some((t) => t.function.name === 'recall_history'),
    )
    expect(offered).toEqual([true, true, true, false])
    // Usage is the sum of what the upstream reported for the four calls.
    expect(result.body.usage).toEqual(reportedUsage(sent))
  })

  it('a reply calling recall and client tools: the recall runs and is stored, the client’s calls are handed over', async () => {
    const id = await withCoveredFact()
    const result = await turn(id, { content: 'Code and weather?', model: 'recallmix-code', tools: [weather], recall: true })
    expect(result.body.status).toBe('requires_action')
    expect(result.body.toolCalls.map((c: { name: string }) => c.name)).toEqual(['get_weather'])
    expect(roles(result.body.events)).toEqual(['user', 'assistant', 'tool'])
    expect(result.body.reply.message.toolCalls.map((c: { name: string }) => c.name)).toEqual(['recall_history', 'get_weather'])
    // Only the client's call is pending; answering it continues the turn.
    const context = (await call('GET', `/v1/sessions/${id}/context`)).body
    expect(context.pendingToolCalls).toEqual([result.body.toolCalls[0].id])
    const next = await turn(id, { toolResults: [{ id: result.body.toolCalls[0].id, data: 'sunny' }], model: 'echo' })
    expect(next.status, next.text).toBe(200)
  })

  it('through the chat-completions door with X-Recall: on; the client’s resent history reconciles without the recall messages', async () => {
    const id = await withCoveredFact()
    const headers = { 'X-Session-Id': id, 'X-Recall': 'on' }
    const first = await call('POST', '/v1/chat/completions', {
      body: { model: 'recall-launch', messages: [{ role: 'user', content: 'The code?' }] },
      headers,
    })
    expect(first.status, first.text).toBe(200)
    expect(first.body.choices[0].message.content).toContain('tangerine-4242')
    const history = [{ role: 'user', content: 'The code?' }, first.body.choices[0].message, { role: 'user', content: 'Thanks' }]
    const second = await call('POST', '/v1/chat/completions', {
      body: { model: 'echo', messages: history },
      headers: { 'X-Session-Id': id },
    })
    expect(second.status, second.text).toBe(200)
    expect(roles((await wholeLog(id)).filter((e) => e.type === 'MESSAGE').slice(-6))).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
      'assistant',
    ])
  })
})
