import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { call, newSessionId, newTag, parseSSE, upstreamRequests, wholeLog } from '../helpers'
import { a, expectAnthropicError, send, text, u } from '../support/messages-door'

/**
 * Anthropic's `context_management` served on the Messages door (round4.md §2): each edit applied
 * by the service to the session's prompt, for any upstream, never forwarded; the answer says what
 * they did (`applied_edits`), plain and streamed; a compaction answered with its block, and the
 * block sent back standing for all before it.
 */

/** What the fake Anthropic upstream received for a tag. */
const anthropicSent = async (tag: string): Promise<{ headers: Record<string, string>; body: any }[]> =>
  (await fetch(`${env.ANTHROPIC_BASE_URL}/__requests?tag=${tag}`)).json() as never

const readFile = { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }

/** A tool result of about 2 KB (≈ 500 tokens): words, as a file's contents would be. */
const fileText = (step: number) =>
  Array.from({ length: 400 }, (_, i) => `w${(step * 7 + i) % 997}`)
    .join(' ')
    .slice(0, 2048)

const clearing = (extra: Record<string, unknown> = {}) => ({
  edits: [
    {
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 1500 },
      keep: { type: 'tool_uses', value: 1 },
      ...extra,
    },
  ],
})

/**
 * An agent's loop as an Anthropic client runs it, the whole history every time: the question, then
 * each tool_use answered with its result, `steps` times (the fake `loop-<n>` model calls step_k).
 */
async function agentLoop(session: string, model: string, steps: number, context_management: unknown) {
  const messages: unknown[] = [u('Read every file and report.')]
  const answers: any[] = []
  for (let step = 1; step <= steps + 1; step++) {
    const answer = await send(session, { model, tools: [readFile], messages, context_management })
    expect(answer.status, answer.text).toBe(200)
    answers.push(answer.body)
    const use = answer.body.content.find((block: any) => block.type === 'tool_use')
    expect(use?.id).toBe(`step_${step}`)
    messages.push(a(answer.body.content))
    if (step <= steps) messages.push(u([{ type: 'tool_result', tool_use_id: use.id, content: fileText(step) }]))
  }
  return { answers, messages }
}

/** The next tool result of a loop whose history ends with the model's call. */
const resultOf = (step: number) => u([{ type: 'tool_result', tool_use_id: `step_${step}`, content: fileText(step) }])

/** The results a prompt sent to the fake OpenAI upstream holds, each as cleared or not. */
const clearedResults = (prompt: any[]) =>
  prompt.filter((message) => message.role === 'tool').map((message) => CLEARED.test(message.content))

const CLEARED =
  /^\[tool result cleared: call step_\d+ \(read_file\), [\d,]+ tokens — recall_history with \{"id": "step_\d+"\} returns it\]$/

describe('clear_tool_uses_20250919', () => {
  it('clears old tool results as a pass once the trigger fires, and says so in applied_edits; the log keeps them whole', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const { answers } = await agentLoop(id, `loop-9#${tag}`, 6, clearing())
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(7)
    // Every answer carries context_management; applied_edits lists the clearing where it happened.
    for (const answer of answers) expect(answer.context_management).toEqual({ applied_edits: expect.any(Array) })
    const applied = answers.flatMap((answer) => answer.context_management.applied_edits)
    expect(applied.length).toBeGreaterThan(0)
    for (const [k, answer] of answers.entries()) {
      const results = clearedResults(sent[k]!.body.messages)
      const [edit] = answer.context_management.applied_edits
      if (!edit) continue
      expect(edit).toEqual({
        type: 'clear_tool_uses_20250919',
        cleared_tool_uses: expect.any(Number),
        cleared_input_tokens: expect.any(Number),
      })
      expect(edit.cleared_tool_uses).toBeGreaterThan(0)
      expect(edit.cleared_input_tokens).toBeGreaterThan(0)
      // That prompt: every result but the newest call's cleared, each call still answered.
      expect(results).toEqual(results.map((_, i) => i < results.length - 1))
    }
    // The whole result is never cleared from the prompt it is new in.
    expect(sent.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: fileText(6) })
    // Nothing of context_management went upstream.
    for (const request of sent) expect(Object.keys(request.body)).not.toContain('context_management')
    // The clearings are passes of the log (COMPACTION boundaries listing what they cleared); nothing was deleted.
    const log = await wholeLog(id)
    const boundaries = log.filter((event) => event.type === 'COMPACTION')
    expect(boundaries.length).toBe(applied.length)
    expect(boundaries.at(-1).boundary.cleared.length).toBeGreaterThan(0)
    expect(log.filter((event) => event.message?.role === 'tool').map((event) => event.message.toolResponses[0].data)).toEqual(
      [1, 2, 3, 4, 5, 6].map(fileText),
    )
  })

  it('does nothing below its trigger, and with a tool_uses trigger fires past that many calls; streamed, message_delta says it', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const high = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 1_000_000 } }] }
    const { answers, messages } = await agentLoop(id, `loop-9#${tag}`, 3, high)
    expect(answers.map((answer) => answer.context_management)).toEqual(answers.map(() => ({ applied_edits: [] })))
    expect((await wholeLog(id)).some((event) => event.type === 'COMPACTION')).toBe(false)
    // 4 calls in the prompt, more than 3: the next request clears all but the newest 2.
    const byCalls = clearing({ trigger: { type: 'tool_uses', value: 3 }, keep: { type: 'tool_uses', value: 2 } })
    const next = [...messages, resultOf(4)]
    const streamed = await send(id, {
      model: `loop-9#${tag}`,
      tools: [readFile],
      messages: next,
      context_management: byCalls,
      stream: true,
    })
    expect(streamed.status, streamed.text).toBe(200)
    const frames = parseSSE(streamed.text)
    const delta = frames.find((frame) => frame.event === 'message_delta')!.data
    expect(delta.context_management).toEqual({
      applied_edits: [{ type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: expect.any(Number) }],
    })
    expect(clearedResults((await upstreamRequests(tag)).at(-1)!.body.messages)).toEqual([true, true, false, false])
  })

  it('clears the named tools’ inputs with clear_tool_inputs, leaves exclude_tools alone, and needs clear_at_least', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    // clear_at_least more than the loop holds: nothing happens.
    const tooMuch = clearing({ clear_at_least: { type: 'input_tokens', value: 1_000_000 } })
    const { answers } = await agentLoop(id, `loop-9#${tag}`, 4, tooMuch)
    expect(answers.flatMap((answer) => answer.context_management.applied_edits)).toEqual([])
    const { answers: excluded } = await agentLoop(
      newSessionId('cm'),
      `loop-9#${newTag()}`,
      4,
      clearing({ exclude_tools: ['read_file'] }),
    )
    expect(excluded.flatMap((answer) => answer.context_management.applied_edits)).toEqual([])
    // A tool_uses trigger fires on every request past it (the calls stay in the prompt): each clears what fell out of keep.
    const inputsTag = newTag()
    const byCalls = clearing({ trigger: { type: 'tool_uses', value: 2 }, clear_tool_inputs: ['read_file'] })
    await agentLoop(newSessionId('cm'), `loop-9#${inputsTag}`, 4, byCalls)
    const last = (await upstreamRequests(inputsTag)).at(-1)!.body.messages as any[]
    expect(clearedResults(last)).toEqual([true, true, true, false])
    const calls = last.filter((message) => message.tool_calls).map((message) => message.tool_calls[0].function.arguments)
    expect(calls).toEqual(['{}', '{}', '{}', '{"step":4}'])
    // The notice says what the call was, and how to get its arguments back.
    const cleared = last.find((message) => message.tool_calls?.[0].id === 'step_1')
    expect(cleared.content).toMatch(
      /^\[tool input cleared: call step_1 \(read_file\), \d+ tokens — recall_history with \{"id": "step_1"\} returns it\]$/,
    )
  })
})

describe('count_tokens with context_management', () => {
  it('counts the prompt after the edits its request would apply, as the turn then clears it, and writes nothing', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    // Six results of ~500 tokens stored, none cleared (no edits asked for yet).
    const { messages } = await agentLoop(id, `loop-9#${tag}`, 6, undefined)
    const next = [...messages, resultOf(7)]
    const count = (context_management?: unknown) =>
      call('POST', '/v1/messages/count_tokens', {
        body: { model: 'echo', tools: [readFile], messages: next, ...(context_management ? { context_management } : {}) },
        // Recall on: recall_history is in the prompt before the clearing as after it (see below).
        headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': id, 'X-Recall': 'on' },
      })
    const plain = await count()
    expect(plain.body).toEqual({ input_tokens: expect.any(Number), context_management: null })
    const before = (await wholeLog(id)).length
    const managed = await count(clearing())
    expect(managed.status, managed.text).toBe(200)
    expect(managed.body.context_management).toEqual({ original_input_tokens: plain.body.input_tokens })
    const saved = plain.body.input_tokens - managed.body.input_tokens
    expect(saved).toBeGreaterThan(1000)
    expect(await wholeLog(id)).toHaveLength(before)
    // The request itself clears what its count said it would.
    const sent = await send(
      id,
      { model: `loop-9#${tag}`, tools: [readFile], messages: next, context_management: clearing() },
      { 'X-Recall': 'on' },
    )
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body.context_management.applied_edits).toEqual([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 6, cleared_input_tokens: saved },
    ])
    // Below its trigger nothing is taken off.
    const high = await count(clearing({ trigger: { type: 'input_tokens', value: 1_000_000 } }))
    expect(high.body.input_tokens).toBe(high.body.context_management.original_input_tokens)
  })

  it('counts recall_history in the prompt once a clearing would offer it', async () => {
    const id = newSessionId('cm')
    const { messages } = await agentLoop(id, `loop-9#${newTag()}`, 6, undefined)
    const count = (recall: boolean) =>
      call('POST', '/v1/messages/count_tokens', {
        body: { model: 'echo', tools: [readFile], messages: [...messages, resultOf(7)], context_management: clearing() },
        headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': id, ...(recall ? { 'X-Recall': 'on' } : {}) },
      })
    const [off, on] = [await count(false), await count(true)]
    // The tool is in the prompt after the clearing either way; before it, only when asked for.
    expect(off.body.input_tokens).toBe(on.body.input_tokens)
    expect(off.body.context_management.original_input_tokens).toBeLessThan(on.body.context_management.original_input_tokens)
  })
})

describe('clear_thinking_20251015', () => {
  /** Three turns of a thinking model (each reply with its thinking block), the history sent back whole. */
  async function thinkingTurns(id: string, model: string) {
    const messages: unknown[] = []
    for (const question of ['one', 'two', 'three']) {
      messages.push(u(question))
      const answer = await send(id, { model, messages })
      expect(answer.status, answer.text).toBe(200)
      messages.push(a(answer.body.content))
    }
    return messages
  }
  const thinkingOf = (body: any) =>
    body.messages
      .filter((m: any) => m.role === 'assistant')
      .map((m: any) => m.content.filter((b: any) => b.type === 'thinking').length)

  it('keeps the thinking of the newest turns only in what goes to an Anthropic upstream, which never sees the edit', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await thinkingTurns(id, `claude-think#${tag}`)
    const context_management = { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] }
    const answer = await send(id, { model: `claude-think#${tag}`, messages: [...messages, u('four')], context_management })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.context_management).toEqual({
      applied_edits: [{ type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: expect.any(Number) }],
    })
    expect(answer.body.context_management.applied_edits[0].cleared_input_tokens).toBeGreaterThan(0)
    const sent = await anthropicSent(tag)
    expect(thinkingOf(sent.at(-1)!.body)).toEqual([0, 0, 1])
    expect(Object.keys(sent.at(-1)!.body)).not.toContain('context_management')
    // The log keeps every thinking block.
    const replies = (await wholeLog(id)).filter((event) => event.message?.role === 'assistant')
    expect(replies.every((event) => event.message.reasoning?.length === 1)).toBe(true)
  })

  it('as Claude Code sends it (no keep: the newest turn’s), streamed; keep "all" keeps everything', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await thinkingTurns(id, `claude-think#${tag}`)
    const claudeCode = { edits: [{ type: 'clear_thinking_20251015' }] }
    const streamed = await send(id, {
      model: `claude-think#${tag}`,
      messages: [...messages, u('four')],
      context_management: claudeCode,
      thinking: { type: 'adaptive' },
      stream: true,
    })
    expect(streamed.status, streamed.text).toBe(200)
    const delta = parseSSE(streamed.text).find((frame) => frame.event === 'message_delta')!.data
    expect(delta.context_management.applied_edits).toMatchObject([{ type: 'clear_thinking_20251015', cleared_thinking_turns: 2 }])
    const sent = await anthropicSent(tag)
    expect(thinkingOf(sent.at(-1)!.body)).toEqual([0, 0, 1])
    // The client's other fields still go; context_management does not.
    expect(sent.at(-1)!.body.thinking).toEqual({ type: 'adaptive' })
    expect(Object.keys(sent.at(-1)!.body)).not.toContain('context_management')
    const all = { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }
    const answered = parseSSE(streamed.text)
      .filter((frame) => frame.event === 'content_block_delta' && frame.data.delta.type === 'text_delta')
      .map((frame) => frame.data.delta.text)
      .join('')
    const kept = await send(id, {
      model: `claude-think#${tag}`,
      messages: [...messages, u('four'), a([text(answered)]), u('five')],
      context_management: all,
    })
    expect(kept.status, kept.text).toBe(200)
    expect(kept.body.context_management).toEqual({ applied_edits: [] })
    expect(thinkingOf((await anthropicSent(tag)).at(-1)!.body)).toEqual([1, 1, 1, 1])
  })

  it('applies to a request answered without the session (Claude Code’s auxiliary class) too, which stores nothing', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const think = (n: string) => ({ type: 'thinking', thinking: `Thinking ${n}.`, signature: `sig-${n}` })
    const history = [u('one'), a([think('1'), text('Echo: one')]), u('two'), a([think('2'), text('Echo: two')]), u('three')]
    const answer = await send(
      id,
      { model: `claude-think#${tag}`, messages: history, context_management: { edits: [{ type: 'clear_thinking_20251015' }] } },
      { 'x-claude-code-request-class': 'auxiliary' },
    )
    expect(answer.status, answer.text).toBe(200)
    expect(answer.headers.get('x-stored')).toBe('false')
    expect(answer.body.context_management).toEqual({
      applied_edits: [{ type: 'clear_thinking_20251015', cleared_thinking_turns: 1, cleared_input_tokens: expect.any(Number) }],
    })
    const sent = await anthropicSent(tag)
    expect(sent).toHaveLength(1)
    expect(thinkingOf(sent[0]!.body)).toEqual([0, 1])
    expect(Object.keys(sent[0]!.body)).not.toContain('context_management')
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })

  it('clears nothing for an upstream that is never sent thinking', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const history = [u('one'), a([{ type: 'thinking', thinking: 'Hmm.', signature: 's' }, text('Echo: one')]), u('two')]
    const answer = await send(id, {
      model: `echo#${tag}`,
      messages: history,
      context_management: { edits: [{ type: 'clear_thinking_20251015' }] },
    })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.context_management).toEqual({ applied_edits: [] })
  })
})

describe('compact_20260112', () => {
  /** A session of three answered turns through the door (the echo model), the history as the client holds it. */
  async function threeTurns(id: string, model: string) {
    const messages: any[] = []
    for (const question of ['One', 'Two', 'Three']) {
      messages.push(u(question))
      const answer = await send(id, { model, messages })
      expect(answer.status, answer.text).toBe(200)
      messages.push(a(answer.body.content))
    }
    return messages
  }
  const compactAt = (value: number, extra: Record<string, unknown> = {}) => ({
    edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value }, ...extra }],
  })
  const userTexts = (log: any[]) => log.filter((e) => e.message?.role === 'user' && !e.synthetic).map((e) => e.message.content)

  it('summarizes what came before the newest turn once the trigger fires: the compaction block first, then the reply', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `echo#${tag}`)
    const below = await send(id, {
      model: `echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(100_000),
    })
    expect(below.body.content).toEqual([text('Echo: Four')])
    messages.push(u('Four'), a(below.body.content))
    const answer = await send(id, {
      model: `echo#${tag}`,
      messages: [...messages, u('Five')],
      context_management: compactAt(20, { instructions: 'Keep the numbers.' }),
    })
    expect(answer.status, answer.text).toBe(200)
    const [block, reply] = answer.body.content
    expect(block).toEqual({ type: 'compaction', content: expect.any(String), encrypted_content: expect.any(String) })
    expect(block.content.length).toBeGreaterThan(0)
    expect(reply).toEqual(text('Echo: Five'))
    expect(answer.body.stop_reason).toBe('end_turn')
    expect(answer.body.context_management).toEqual({ applied_edits: [] })
    // The prompt sent: the summary in place of the older turns, then the question.
    const prompt = (await upstreamRequests(tag)).at(-1)!.body.messages
    expect(prompt.map((message) => message.content).at(-1)).toBe('Five')
    expect(prompt.some((message) => message.content === 'One')).toBe(false)
    // The log: a pass with its summary; every message still there, once.
    const log = await wholeLog(id)
    expect(log.filter((event) => event.type === 'COMPACTION')).toHaveLength(1)
    expect(userTexts(log)).toEqual(['One', 'Two', 'Three', 'Four', 'Five'])
  })

  it('a compaction block sent back stands for all before it, whole history or not; one not of this session is a 400', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `echo#${tag}`)
    const compacted = await send(id, {
      model: `echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(20),
    })
    expect(compacted.status, compacted.text).toBe(200)
    const assistant = a(compacted.body.content)
    // The whole history with the block: what follows it is matched after the point it names.
    const whole = await send(id, { model: `echo#${tag}`, messages: [...messages, u('Four'), assistant, u('Five')] })
    expect(whole.status, whole.text).toBe(200)
    expect(whole.body.content).toEqual([text('Echo: Five')])
    // As Anthropic allows: only the block's message and what follows.
    const short = await send(id, {
      model: `echo#${tag}`,
      messages: [assistant, u('Five'), a(whole.body.content), u('Six')],
    })
    expect(short.status, short.text).toBe(200)
    expect(short.body.content).toEqual([text('Echo: Six')])
    expect(userTexts(await wholeLog(id))).toEqual(['One', 'Two', 'Three', 'Four', 'Five', 'Six'])
    // Altered, or another session's: refused naming the block, nothing written.
    const altered = { ...compacted.body.content[0], encrypted_content: `${compacted.body.content[0].encrypted_content}x` }
    const forged = await send(id, { model: `echo#${tag}`, messages: [a([altered, text('Echo: Four')]), u('Seven')] })
    expectAnthropicError(
      forged,
      400,
      'invalid_request_error',
      /^messages\[0\]\.content\[0\]\.encrypted_content: not a compaction of this session/,
    )
    const other = newSessionId('cm')
    const elsewhere = await send(other, { model: `echo#${tag}`, messages: [assistant, u('Seven')] })
    expectAnthropicError(elsewhere, 400, 'invalid_request_error', /encrypted_content: not a compaction of this session/)
    expect(elsewhere.headers.get('x-should-retry')).toBe('false')
    expect((await call('GET', `/v1/sessions/${other}`)).status).toBe(404)
    // A failed compaction's block (no summary, no capsule) stands for nothing: it is left out.
    const empty = await send(id, {
      model: `echo#${tag}`,
      messages: [a([{ type: 'compaction', content: null }]), u('Six'), a(short.body.content), u('Seven')],
    })
    expect(empty.status, empty.text).toBe(200)
    expect(userTexts(await wholeLog(id))).toEqual(['One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven'])
  })

  it('with an Anthropic upstream: neither the edit nor a block sent back goes upstream', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `claude-echo#${tag}`)
    const compacted = await send(id, {
      model: `claude-echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(20),
    })
    expect(compacted.body.content.map((block: any) => block.type)).toEqual(['compaction', 'text'])
    const next = await send(id, {
      model: `claude-echo#${tag}`,
      messages: [...messages, u('Four'), a(compacted.body.content), u('Five')],
      context_management: compactAt(100_000),
    })
    expect(next.status, next.text).toBe(200)
    expect(next.body.content).toEqual([text('Echo: Five')])
    for (const { body } of await anthropicSent(tag)) {
      expect(Object.keys(body)).not.toContain('context_management')
      expect(JSON.stringify(body.messages)).not.toContain('"compaction"')
    }
  })

  it('streamed: the compaction block opens the message, as Anthropic streams it (compaction_delta)', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `echo#${tag}`)
    const streamed = await send(id, {
      model: `echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(20),
      stream: true,
    })
    expect(streamed.status, streamed.text).toBe(200)
    const frames = parseSSE(streamed.text)
    expect(frames.map((frame) => frame.event).slice(0, 5)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
    ])
    expect(frames[2]!.data).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'compaction', content: null, encrypted_content: null },
    })
    expect(frames[3]!.data.delta).toEqual({
      type: 'compaction_delta',
      content: expect.any(String),
      encrypted_content: expect.any(String),
    })
    const starts = frames.filter((frame) => frame.event === 'content_block_start').map((frame) => frame.data.content_block.type)
    expect(starts).toEqual(['compaction', 'text'])
    expect(frames.at(-2)!.data).toMatchObject({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn' },
      context_management: { applied_edits: [] },
    })
    // The block streamed is one the session takes back.
    const block = {
      type: 'compaction',
      content: frames[3]!.data.delta.content,
      encrypted_content: frames[3]!.data.delta.encrypted_content,
    }
    const next = await send(id, { model: `echo#${tag}`, messages: [a([block, text('Echo: Four')]), u('Five')] })
    expect(next.status, next.text).toBe(200)
    expect(next.body.content).toEqual([text('Echo: Five')])
  })

  it('when the summary model fails: a block with neither summary nor capsule first, the turn answered, nothing compacted', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    // The session's summarizer fails; its own trigger never fires.
    const policy = {
      trigger: { turnCount: 1000 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `fail-500#${tag}` } },
    }
    expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
    const messages = await threeTurns(id, `echo#${tag}`)
    const request = { model: `echo#${tag}`, messages: [...messages, u('Four')], context_management: compactAt(20) }
    const answer = await send(id, request)
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.content).toEqual([{ type: 'compaction', content: null, encrypted_content: null }, text('Echo: Four')])
    const streamed = await send(id, {
      ...request,
      messages: [...request.messages, a(answer.body.content), u('Five')],
      stream: true,
    })
    expect(streamed.status, streamed.text).toBe(200)
    const starts = parseSSE(streamed.text).filter((frame) => frame.event === 'content_block_start')
    expect(starts.map((frame) => [frame.data.index, frame.data.content_block.type])).toEqual([
      [0, 'compaction'],
      [1, 'text'],
    ])
    const log = await wholeLog(id)
    expect(log.some((event) => event.type === 'COMPACTION')).toBe(false)
    // The failed block sent back stood for nothing: every message once.
    expect(userTexts(log)).toEqual(['One', 'Two', 'Three', 'Four', 'Five'])
  })

  it('pause_after_compaction: the block alone (stop_reason compaction), the question stored; sent back, the model answers it', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `echo#${tag}`)
    const before = (await upstreamRequests(tag)).length
    const paused = await send(id, {
      model: `echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(20, { pause_after_compaction: true }),
    })
    expect(paused.status, paused.text).toBe(200)
    expect(paused.body.content).toEqual([
      { type: 'compaction', content: expect.any(String), encrypted_content: expect.any(String) },
    ])
    expect(paused.body.stop_reason).toBe('compaction')
    expect(paused.body.id).toMatch(/^msg_/)
    // No model call for the reply; the question is stored, unanswered.
    expect((await upstreamRequests(tag)).length).toBe(before)
    expect(userTexts(await wholeLog(id))).toEqual(['One', 'Two', 'Three', 'Four'])
    // Sent again as the same request (the answer was lost): the question is answered.
    // As Anthropic's docs go on: the block appended, the request sent again.
    const resumed = await send(id, { model: `echo#${tag}`, messages: [...messages, u('Four'), a(paused.body.content)] })
    expect(resumed.status, resumed.text).toBe(200)
    expect(resumed.body.content).toEqual([text('Echo: Four')])
    const log = await wholeLog(id)
    expect(userTexts(log)).toEqual(['One', 'Two', 'Three', 'Four'])
    expect(log.filter((event) => event.message?.role === 'assistant' && !event.synthetic).at(-1).message.content).toBe(
      'Echo: Four',
    )
  })

  it('pause_after_compaction streamed: message_start, the block, message_delta with stop_reason compaction; a resent paused request is answered', async () => {
    const id = newSessionId('cm')
    const tag = newTag()
    const messages = await threeTurns(id, `echo#${tag}`)
    const request = {
      model: `echo#${tag}`,
      messages: [...messages, u('Four')],
      context_management: compactAt(20, { pause_after_compaction: true }),
    }
    const streamed = await send(id, { ...request, stream: true })
    expect(streamed.status, streamed.text).toBe(200)
    const frames = parseSSE(streamed.text)
    expect(frames.map((frame) => frame.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ])
    expect(frames[5]!.data).toMatchObject({ delta: { stop_reason: 'compaction' }, context_management: { applied_edits: [] } })
    // The same request again (its answer lost): the stored question is answered, nothing stored twice.
    const again = await send(id, request)
    expect(again.status, again.text).toBe(200)
    expect(again.body.content.at(-1)).toEqual(text('Echo: Four'))
    expect(userTexts(await wholeLog(id))).toEqual(['One', 'Two', 'Three', 'Four'])
  })
})

describe('context_management validation', () => {
  it('an edit of a type the service does not serve is a 400 naming it; a bad field, or a type twice, too', async () => {
    const id = newSessionId('cm')
    const unknown = await send(id, {
      model: 'echo',
      messages: [u('Hi')],
      context_management: { edits: [{ type: 'clear_everything_20990101' }] },
    })
    expectAnthropicError(
      unknown,
      400,
      'invalid_request_error',
      /context_management\.edits\[0\]\.type: "clear_everything_20990101" edits are not supported/,
    )
    const field = await send(id, {
      model: 'echo',
      messages: [u('Hi')],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: -1 } }] },
    })
    expectAnthropicError(field, 400, 'invalid_request_error', /context_management\.edits\[0\]\.keep\.value/)
    const extra = await send(id, {
      model: 'echo',
      messages: [u('Hi')],
      context_management: { edits: [{ type: 'compact_20260112', pause: true }] },
    })
    expectAnthropicError(extra, 400, 'invalid_request_error', /context_management\.edits\[0\]\.pause: unknown field/)
    const twice = await send(id, {
      model: 'echo',
      messages: [u('Hi')],
      context_management: { edits: [{ type: 'clear_thinking_20251015' }, { type: 'clear_thinking_20251015' }] },
    })
    expectAnthropicError(twice, 400, 'invalid_request_error', /edits\[1\]\.type: "clear_thinking_20251015" is given twice/)
    const inUser = await send(id, {
      model: 'echo',
      messages: [u([{ type: 'compaction', content: 'x', encrypted_content: 'y' }])],
    })
    expectAnthropicError(
      inUser,
      400,
      'invalid_request_error',
      /messages\[0\]\.content\[0\]\.type: a user message cannot hold "compaction" blocks/,
    )
    // Nothing was written by any of them.
    const session = await send(id, { model: 'echo', messages: [u('Hi')] })
    expect(session.status).toBe(200)
    expect((await wholeLog(id)).length).toBe(2)
  })
})
