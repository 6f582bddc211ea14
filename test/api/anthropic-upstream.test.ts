import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { call, newSessionId, newTag, parseSSE, upstreamRequests, wholeLog } from '../helpers'

/** What the fake Anthropic upstream received for a tag: headers and body. */
const anthropicSent = async (tag: string): Promise<{ headers: Record<string, string>; body: any }[]> =>
  (await fetch(`${env.ANTHROPIC_BASE_URL}/__requests?tag=${tag}`)).json() as never

const send = (session: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/messages', {
    body: { max_tokens: 256, ...body },
    headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': session, ...headers },
  })
const u = (content: string) => ({ role: 'user', content })
/** A prompt's messages without the cache markers. */
const unmarked = (messages: unknown[]) => JSON.parse(JSON.stringify(messages).replace(/,?"cache_control":\{[^}]*\}/g, ''))

describe('a native Anthropic upstream (models named claude…)', () => {
  it('answers the Messages door with the cache’s usage; each prompt starts with the previous one, markers aside', async () => {
    const id = newSessionId()
    const tag = newTag()
    const history: unknown[] = []
    const answers: any[] = []
    for (const question of ['one', 'two', 'three']) {
      history.push(u(question))
      const result = await send(id, { model: `claude-echo#${tag}`, system: 'Be brief.', messages: history })
      expect(result.status, result.text).toBe(200)
      answers.push(result.body)
      history.push({ role: 'assistant', content: result.body.content })
    }
    expect(answers.map((a) => a.content[0].text)).toEqual(['Echo: one', 'Echo: two', 'Echo: three'])
    const sent = await anthropicSent(tag)
    for (let i = 1; i < sent.length; i++) {
      const before = unmarked(sent[i - 1]!.body.messages)
      expect(unmarked(sent[i]!.body.messages).slice(0, before.length)).toEqual(before)
      expect(sent[i]!.body.system).toEqual(sent[0]!.body.system)
    }
    // Only the service's markers: the system prompt and the newest message's last block.
    const markers = JSON.stringify(sent.at(-1)!.body).match(/cache_control/g)
    expect(markers).toHaveLength(2)
    // The cache read what the previous prompt wrote: input_tokens is only what it did not.
    const usage = answers[2].usage
    expect(usage.cache_read_input_tokens).toBeGreaterThan(0)
    expect(usage.input_tokens).toBeGreaterThan(0)
    expect(usage.input_tokens).toBeLessThan(usage.cache_read_input_tokens)
  })

  it('streams through the Messages door; the chat-completions door reaches it too', async () => {
    const id = newSessionId()
    const tag = newTag()
    const streamed = await send(id, { model: `claude-echo#${tag}`, stream: true, messages: [u('Stream it')] })
    const frames = parseSSE(streamed.text)
    expect(
      frames
        .filter((f) => f.event === 'content_block_delta')
        .map((f) => f.data.delta.text)
        .join(''),
    ).toBe('Echo: Stream it')
    expect(frames.at(-2)!.data.delta.stop_reason).toBe('end_turn')
    const chat = await call('POST', '/v1/chat/completions', {
      body: { model: `claude-echo#${tag}`, messages: [u('Through chat')] },
      headers: { 'X-Session-Id': id },
    })
    expect(chat.body.choices[0]).toMatchObject({ message: { content: 'Echo: Through chat' }, finish_reason: 'stop' })
    // The cache's share, in OpenAI's names: the prompt starts with the one before it.
    expect(chat.body.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(0)
    expect((await wholeLog(id)).map((e) => e.message.content)).toEqual([
      'Stream it',
      'Echo: Stream it',
      'Through chat',
      'Echo: Through chat',
    ])
  })

  it('passes a Messages client’s other fields and anthropic-beta to Anthropic only', async () => {
    const id = newSessionId()
    const tag = newTag()
    const extras = { thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }
    await send(
      id,
      { model: `claude-echo#${tag}`, messages: [u('Hi')], ...extras },
      { 'anthropic-beta': 'context-management-2025-06-27' },
    )
    const [sent] = await anthropicSent(tag)
    expect(sent!.body).toMatchObject(extras)
    expect(sent!.headers['anthropic-beta']).toBe('context-management-2025-06-27')
    // The same request to another upstream: none of it goes there.
    const other = newTag()
    await send(id, { model: `echo#${other}`, messages: [u('Hi again')], ...extras }, { 'anthropic-beta': 'x' })
    const [elsewhere] = await upstreamRequests(other)
    expect(Object.keys(elsewhere!.body)).not.toContain('thinking')
    expect(Object.keys(elsewhere!.body)).not.toContain('output_config')
  })

  it('passes a stop sequence’s stop on, plain and streamed, as Anthropic answers it; the OpenAI doors say stop', async () => {
    const id = newSessionId()
    const model = `claude-echo#${newTag()}`
    const plain = await send(id, { model, stop_sequences: ['HALT'], messages: [u('one two HALT three')] })
    expect(plain.status, plain.text).toBe(200)
    expect(plain.body).toMatchObject({
      content: [{ type: 'text', text: 'Echo: one two ' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'HALT',
    })
    const streamed = await send(id, { model, stream: true, stop_sequences: ['HALT'], messages: [u('four HALT five')] })
    const frames = parseSSE(streamed.text)
    expect(frames.find((f) => f.event === 'message_start')!.data.message).toMatchObject({
      stop_reason: null,
      stop_sequence: null,
    })
    expect(frames.find((f) => f.event === 'message_delta')!.data.delta).toEqual({
      stop_reason: 'stop_sequence',
      stop_sequence: 'HALT',
    })
    // Without one in the text: the turn's end, no sequence.
    const ended = await send(id, { model, stop_sequences: ['HALT'], messages: [u('six')] })
    expect(ended.body).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null })
    // Chat Completions has no such reason: a stop sequence is `stop`, as OpenAI answers it.
    const chat = await call('POST', '/v1/chat/completions', {
      body: { model, stop: ['HALT'], messages: [u('seven HALT eight')] },
      headers: { 'X-Session-Id': newSessionId() },
    })
    expect(chat.body.choices[0]).toMatchObject({ message: { content: 'Echo: seven ' }, finish_reason: 'stop' })
  })

  it('passes Anthropic’s own 429 and 529 on, with retry-after; a prompt it finds too long is "prompt is too long"', async () => {
    const id = newSessionId()
    const limited = await send(id, { model: `claude-limited#${newTag()}`, messages: [u('x')] })
    expect(limited.status).toBe(429)
    expect(limited.body.error.type).toBe('rate_limit_error')
    expect(limited.headers.get('retry-after')).toBe('7')
    const overloaded = await send(id, { model: `claude-overloaded#${newTag()}`, messages: [u('x')] })
    expect(overloaded.status).toBe(529)
    expect(overloaded.body.error.type).toBe('overloaded_error')
    const long = await send(id, { model: `claude-long#${newTag()}`, messages: [u('x')] })
    expect(long.status).toBe(400)
    expect(long.body.error.message).toMatch(/^prompt is too long/)
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })
})

describe('reasoning', () => {
  it('keeps Anthropic’s thinking on the reply, answers it first through the Messages door, and sends it back to Anthropic only', async () => {
    const id = newSessionId()
    const tag = newTag()
    const thinking = { type: 'thinking', thinking: 'Let me think.', signature: 'sig-123' }
    const plain = await send(id, { model: `claude-think#${tag}`, messages: [u('Why?')] })
    expect(plain.body.content).toEqual([thinking, { type: 'text', text: 'Echo: Why?' }])
    const [reply] = (await wholeLog(id)).slice(-1)
    expect(reply.message.reasoning).toEqual([{ provider: 'anthropic', ...thinking }])
    expect(reply.message.content).toBe('Echo: Why?')

    // Streamed: the thinking block comes first, its text and signature as deltas.
    const streamed = parseSSE((await send(id, { model: `claude-think#${tag}`, stream: true, messages: [u('And how?')] })).text)
    const blocks = streamed.filter((f) => f.event.startsWith('content_block'))
    expect(blocks.slice(0, 4).map((f) => [f.event, f.data.index, f.data.delta?.type ?? f.data.content_block?.type])).toEqual([
      ['content_block_start', 0, 'thinking'],
      ['content_block_delta', 0, 'thinking_delta'],
      ['content_block_delta', 0, 'signature_delta'],
      ['content_block_stop', 0, undefined],
    ])
    expect(blocks[1]!.data.delta.thinking).toBe('Let me think.')
    expect(blocks[2]!.data.delta.signature).toBe('sig-123')

    // The next prompt to Anthropic carries the replies' thinking as it came; another upstream gets none of it.
    await send(id, { model: `claude-echo#${tag}`, messages: [u('Go on')] })
    const sent = (await anthropicSent(tag)).at(-1)!.body.messages
    expect(sent[1].content[0]).toEqual(thinking)
    const other = newTag()
    const chat = await call('POST', '/v1/chat/completions', {
      body: { model: `echo#${other}`, messages: [u('Elsewhere')] },
      headers: { 'X-Session-Id': id },
    })
    expect(chat.status).toBe(200)
    const [elsewhere] = await upstreamRequests(other)
    expect(JSON.stringify(elsewhere!.body)).not.toContain('Let me think')
    // Nor does the chat-completions door show it.
    const viaChat = await call('POST', '/v1/chat/completions', {
      body: { model: `claude-think#${tag}`, messages: [u('Think via chat')] },
      headers: { 'X-Session-Id': id },
    })
    expect(viaChat.body.choices[0].message).toEqual({ role: 'assistant', content: 'Echo: Think via chat' })
  })
})

describe('the Anthropic upstream’s cache breakpoints', () => {
  it('mark the summary’s message beside the system prompt and the newest message, so a cache holds from pass to pass', async () => {
    const id = newSessionId()
    const tag = newTag()
    const ask = (content: string) =>
      call('POST', `/v1/sessions/${id}/turns`, { body: { model: `claude-echo#${tag}`, system: 'Be brief.', content } })
    for (const question of ['one', 'two', 'three']) expect((await ask(question)).status).toBe(200)
    const compacted = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(compacted.status, compacted.text).toBe(200)
    const summaryText: string = compacted.body.summary[0].message.content
    expect((await ask('four')).status).toBe(200)
    expect((await ask('five')).status).toBe(200)
    const [fourth, fifth] = (await anthropicSent(tag)).slice(-2)
    for (const request of [fourth!, fifth!]) {
      expect(JSON.stringify(request.body).match(/cache_control/g)).toHaveLength(3)
      const summary = request.body.messages.find((message: any) =>
        JSON.stringify(message.content).includes(summaryText.slice(0, 40)),
      )
      expect(summary.content.at(-1).cache_control).toEqual({ type: 'ephemeral' })
      expect(request.body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' })
    }
    // Before the summary, the same prefix both times: what the breakpoint lets the cache keep.
    const upToSummary = (body: any) => {
      const at = body.messages.findIndex((message: any) => JSON.stringify(message.content).includes(summaryText.slice(0, 40)))
      return JSON.stringify(body.messages.slice(0, at + 1))
    }
    expect(upToSummary(fifth!.body)).toBe(upToSummary(fourth!.body))
  })
})
