import { describe, expect, it } from 'vitest'
import { call, newSessionId, turn, type UpstreamRequest, upstreamRequests, wholeLog } from '../helpers'
import { expectNothingLost } from '../support/log-checker'

/**
 * Agent loops of any length (round4.md §2): one question, then hundreds of tool calls with large
 * results — more than the model's window holds — through /turns. The fake model (`loop-<n>`) calls
 * the tool n times, one call a request, then answers; the windows are set per model name in
 * vitest.config.ts (MODEL_CONTEXT_TOKENS).
 */

const TOOL = { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } }

/** A tool result of 8 KB (8,192 characters: 820 words made only ~4 KB): words, as a file's contents would be. */
const result = (step: number) =>
  Array.from({ length: 1700 }, (_, i) => `w${(step * 7 + i) % 997}`)
    .join(' ')
    .slice(0, 8192)

/** The prompt's size as the fake upstream counts it (its own rule: a token per 4 characters, and framing). */
const promptTokensAtUpstream = (request: UpstreamRequest) => {
  expect(request.usage, 'the fake upstream reports its usage').not.toBeNull()
  return request.usage!.prompt_tokens
}

/**
 * The steps the model was asked for, one per request but for a request retried (a slow answer on a
 * loaded machine is retried, and asks the same step again): each step once, in order.
 */
function expectEveryStepAskedOnce(requests: UpstreamRequest[], steps: number) {
  const asked = requests.map((request) => {
    const last = (request.body.messages as any[]).at(-1)
    return last.role === 'tool' ? last.tool_call_id : 'question'
  })
  const once = asked.filter((step, i) => step !== asked[i - 1])
  expect(once).toEqual(['question', ...Array.from({ length: steps }, (_, i) => `step_${i + 1}`)])
}

/** Every call on the wire is followed by its result, and no result comes without its call. */
function expectPaired(request: UpstreamRequest) {
  const open = new Set<string>()
  for (const message of request.body.messages as any[]) {
    for (const toolCall of message.tool_calls ?? []) open.add(toolCall.id)
    if (message.role === 'tool') {
      expect(open.has(message.tool_call_id), `a result for ${message.tool_call_id} without its call`).toBe(true)
      open.delete(message.tool_call_id)
    } else if (message.role !== 'assistant' || !message.tool_calls) {
      expect([...open], 'calls left without their results').toEqual([])
    }
  }
}

/** Runs the loop through /turns as an agent does: the question, then each call answered with its result (its tools offered each time), until the model answers. */
async function runLoop(id: string, model: string, steps: number) {
  let answered = await turn(id, { model, content: 'Read every file and report.', tools: [TOOL] })
  for (let step = 1; step <= steps; step++) {
    expect(answered.status, `step ${step}: ${answered.text.slice(0, 300)}`).toBe(200)
    expect(answered.body.status).toBe('requires_action')
    const [pending] = answered.body.toolCalls
    expect(pending.id).toBe(`step_${step}`)
    answered = await turn(id, { model, tools: [TOOL], toolResults: [{ id: pending.id, data: result(step) }] })
  }
  expect(answered.status, answered.text.slice(0, 300)).toBe(200)
  return answered
}

/** Hundreds of requests a test: a guard against a hang, not a bound on speed (that is the benchmarks'). */
const LOOP_TIMEOUT = 300_000

describe('an agent loop larger than the window', { timeout: LOOP_TIMEOUT }, () => {
  it('300 calls of 8 KB results in a 32k window: no 413, no prompt over the window, every call paired, nothing lost', async () => {
    const id = newSessionId('loop')
    const done = await runLoop(id, 'loop-300#turns', 300)
    expect(done.body.reply.message.content).toBe('Done after 300 steps')
    const sent = await upstreamRequests('turns')
    expectEveryStepAskedOnce(sent, 300)
    for (const request of sent) {
      expect(promptTokensAtUpstream(request)).toBeLessThanOrEqual(32_768 - 1024)
      expectPaired(request)
    }
    // Old results were cleared, each replaced by the notice that says how to get it back.
    const last = sent.at(-1)!.body.messages as any[]
    const first = last.find((message) => message.role === 'tool' && message.tool_call_id === 'step_1')
    expect(first?.content ?? '').toMatch(
      /^\[tool result cleared: call step_1 \(read_file\), [\d,]+ tokens — recall_history with \{"id": "step_1"\} returns it\]$/,
    )
    // The newest results go whole.
    expect(last.find((message) => message.tool_call_id === 'step_300').content).toBe(result(300))
    const log = await wholeLog(id)
    expectNothingLost(log)
    // The log keeps every result whole.
    const results = log.filter((event) => event.message?.role === 'tool')
    expect(results).toHaveLength(300)
    expect(results[0].message.toolResponses[0].data).toBe(result(1))
  })

  it('in a window too small for even the cleared loop, a pass inside the turn covers its older steps behind a summary after the question', async () => {
    const id = newSessionId('loop')
    const done = await runLoop(id, 'loop-120#small', 120)
    expect(done.body.reply.message.content).toBe('Done after 120 steps')
    const sent = await upstreamRequests('small')
    const loops = sent.filter((request) => request.model === 'loop-120#small')
    expectEveryStepAskedOnce(loops, 120)
    for (const request of loops) {
      expect(promptTokensAtUpstream(request)).toBeLessThanOrEqual(8192 - 1024)
      expectPaired(request)
    }
    // The newest prompt: the question, then the summary of the turn's earlier steps, then its newest steps.
    const last = loops.at(-1)!.body.messages as any[]
    const question = last.findIndex((message) => message.role === 'user')
    expect(last[question].content).toBe('Read every file and report.')
    expect(last[question + 1].role).toBe('assistant')
    expect(last[question + 1].content).toMatch(
      /^Summary of my earlier steps in this turn:|^\[\d+ earlier tool calls of this turn are out of view/,
    )
    expect(last.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'step_120', content: result(120) })
    expectNothingLost(await wholeLog(id))
  })
})

/**
 * The same loop through each door, as its clients run it: chat completions and Messages resend the
 * whole history each step (the AI SDK's and the Anthropic SDK's tool loops), Responses sends only
 * what is new after `previous_response_id` (the Agents SDK).
 */
describe('an agent loop larger than the window, through each door', { timeout: LOOP_TIMEOUT }, () => {
  const STEPS = 120
  const question = 'Read every file and report.'
  const expectPrompts = async (tag: string, model: string) => {
    const sent = (await upstreamRequests(tag)).filter((request) => request.model === model)
    expectEveryStepAskedOnce(sent, STEPS)
    for (const request of sent) {
      expect(promptTokensAtUpstream(request)).toBeLessThanOrEqual(8192 - 1024)
      expectPaired(request)
    }
  }

  it('chat completions, the whole history resent each step', async () => {
    const id = newSessionId('loop')
    const model = 'loop-120#chat-small'
    const messages: any[] = [{ role: 'user', content: question }]
    for (let step = 1; ; step++) {
      const answered = await call('POST', '/v1/chat/completions', {
        body: { model, messages, tools: [TOOL] },
        headers: { 'X-Session-Id': id },
      })
      expect(answered.status, `step ${step}: ${answered.text.slice(0, 300)}`).toBe(200)
      const message = answered.body.choices[0].message
      messages.push(message)
      if (!message.tool_calls) {
        expect(message.content).toBe(`Done after ${STEPS} steps`)
        break
      }
      messages.push({ role: 'tool', tool_call_id: message.tool_calls[0].id, content: result(step) })
    }
    await expectPrompts('chat-small', model)
    expectNothingLost(await wholeLog(id))
  })

  it('Messages, the whole history resent each step', async () => {
    const id = newSessionId('loop')
    const model = 'loop-120#messages-small'
    const tool = { name: 'read_file', input_schema: { type: 'object', properties: {} } }
    const messages: any[] = [{ role: 'user', content: question }]
    for (let step = 1; ; step++) {
      const answered = await call('POST', '/v1/messages', {
        body: { model, max_tokens: 1024, messages, tools: [tool] },
        headers: { 'X-Session-Id': id, 'anthropic-version': '2023-06-01' },
      })
      expect(answered.status, `step ${step}: ${answered.text.slice(0, 300)}`).toBe(200)
      messages.push({ role: 'assistant', content: answered.body.content })
      const use = answered.body.content.find((block: any) => block.type === 'tool_use')
      if (!use) {
        expect(answered.body.content[0].text).toBe(`Done after ${STEPS} steps`)
        break
      }
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: result(step) }] })
    }
    await expectPrompts('messages-small', model)
    expectNothingLost(await wholeLog(id))
  })

  it('Responses, only what is new after previous_response_id', async () => {
    const model = 'loop-120#responses-small'
    const tool = { type: 'function', name: 'read_file', parameters: { type: 'object', properties: {} } }
    let answered = await call('POST', '/v1/responses', { body: { model, input: question, tools: [tool] } })
    for (let step = 1; ; step++) {
      expect(answered.status, `step ${step}: ${answered.text.slice(0, 300)}`).toBe(200)
      const called = answered.body.output.find((item: any) => item.type === 'function_call')
      if (!called) {
        expect(answered.body.output_text ?? answered.body.output[0].content[0].text).toBe(`Done after ${STEPS} steps`)
        break
      }
      answered = await call('POST', '/v1/responses', {
        body: {
          model,
          previous_response_id: answered.body.id,
          input: [{ type: 'function_call_output', call_id: called.call_id, output: result(step) }],
          tools: [tool],
        },
      })
    }
    await expectPrompts('responses-small', model)
    expectNothingLost(await wholeLog(answered.body.conversation.id))
  })
})

describe('recall by id', () => {
  it('offers recall_history once the view clears a result, and brings a cleared result back whole by its call id', async () => {
    const id = newSessionId('loop')
    const tag = `recall-${Date.now().toString(36)}`
    const read = (n: number) => [
      { message: { role: 'assistant', content: null, toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: `{"n":${n}}` }] } },
      { message: { role: 'tool', content: null, toolResponses: [{ id: `c${n}`, name: 'read_file', data: result(n) }] } },
    ]
    const appended = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [{ message: { role: 'user', content: 'Read three files.' } }, ...read(1), ...read(2), ...read(3)] },
    })
    expect(appended.status).toBe(201)
    const cleared = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { clearToolResults: { keep: 1 } } } })
    expect(cleared.body.boundary.boundary.cleared.map((entry: any) => entry.callIds[0])).toEqual(['c1', 'c2'])
    // The request turns no recall on: the view's clearing does.
    const answered = await turn(id, { model: `recallid-c1#${tag}`, content: 'What was in the first file?' })
    expect(answered.status, answered.text).toBe(200)
    const recalled = JSON.parse(answered.body.reply.message.content.slice('Recalled: '.length))
    expect(recalled.hits).toHaveLength(1)
    expect(recalled.hits[0]).toMatchObject({ role: 'tool', text: `read_file → ${result(1)}` })
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).tools.map((tool: any) => tool.function.name)).toEqual(['recall_history'])
    // What the model was shown of the first file: the notice, not the file.
    const shown = first!.body.messages.find((message) => message.tool_call_id === 'c1')
    expect(shown?.content).toMatch(/^\[tool result cleared: call c1 \(read_file\)/)
  })

  it('never brings back an abandoned message, nor an id the conversation does not hold', async () => {
    const id = newSessionId('loop')
    const tag = `recall-${Date.now().toString(36)}`
    await call('POST', `/v1/sessions/${id}/events`, {
      body: {
        events: [
          { id: 'u1', message: { role: 'user', content: 'First question' } },
          { id: 'a1', message: { role: 'assistant', content: 'An answer left behind' } },
        ],
      },
    })
    expect((await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'a1', position: 'before' } })).status).toBe(200)
    const abandoned = await turn(id, { model: `recallid-a1#${tag}`, content: 'What did you say?', recall: true })
    expect(abandoned.status, abandoned.text).toBe(200)
    expect(JSON.parse(abandoned.body.reply.message.content.slice('Recalled: '.length))).toEqual({
      hits: [],
      error: 'no message or tool call "a1" in this conversation',
    })
    const held = await turn(id, { model: `recallid-u1#${tag}`, content: 'And before?', recall: true })
    expect(JSON.parse(held.body.reply.message.content.slice('Recalled: '.length)).hits[0]).toMatchObject({
      id: 'u1',
      role: 'user',
      text: 'User: First question',
    })
  })
})
