import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { ToolCall } from '../../core'
import type { ChatRequest } from '../port'
import { failure, tag } from '../testing'
import { anthropic } from '.'

const baseUrl = env.ANTHROPIC_BASE_URL!
const model = anthropic({ baseUrl, apiKey: 'ak-123', timeoutMs: 2000 })
const recorded = async (t: string) =>
  (await (await fetch(`${baseUrl}/__requests?tag=${t}`)).json()) as { headers: Record<string, string>; body: any }[]

const request = (name: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: name,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello there' },
  ],
  maxTokens: 77,
  ...extra,
})

describe('anthropic', () => {
  it('posts Messages with its key and version, the system prompt and newest message marked for the cache, and reads the answer', async () => {
    const t = tag()
    const reply = await model.chat(request(`claude-echo#${t}`))
    expect(reply).toEqual({
      content: 'Echo: Hello there',
      toolCalls: [],
      usage: expect.objectContaining({ cachedPromptTokens: 0, completionTokens: expect.any(Number) }),
      finishReason: 'stop',
      model: `claude-echo#${t}`,
    })
    const [sent] = await recorded(t)
    expect(sent!.headers).toEqual({ 'x-api-key': 'ak-123', 'anthropic-version': '2023-06-01' })
    expect(sent!.body).toEqual({
      model: `claude-echo#${t}`,
      max_tokens: 77,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there', cache_control: { type: 'ephemeral' } }] }],
      stream: false,
    })
  })

  it('counts every prompt token in promptTokens, those read from and written to the cache in their own fields', async () => {
    const t = tag()
    await model.chat(request(`claude-echo#${t}`))
    const second = await model.chat(
      request(`claude-echo#${t}`, {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello there' },
          { role: 'assistant', content: 'Echo: Hello there' },
          { role: 'user', content: 'Again' },
        ],
      }),
    )
    const usage = second.usage!
    expect(usage.cachedPromptTokens).toBeGreaterThan(0)
    expect(usage.cacheWriteTokens).toBeGreaterThan(0)
    expect(usage.promptTokens).toBeGreaterThan(usage.cachedPromptTokens! + usage.cacheWriteTokens!)
    expect(usage.totalTokens).toBe(usage.promptTokens + usage.completionTokens)
  })

  it('sends calls as tool_use and results as tool_result blocks of one user message, odd tool ids made safe the same way', async () => {
    const t = tag()
    await model.chat(
      request(`claude-echo#${t}`, {
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call.1:x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: 'not json' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call.1:x', content: '18°C' },
          { role: 'tool', tool_call_id: 'c2', content: '20°C' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        toolChoice: 'required',
        parallelToolCalls: false,
      }),
    )
    const [sent] = await recorded(t)
    const [, assistant, results] = sent!.body.messages
    const safeId = assistant.content[0].id
    expect(safeId).toMatch(/^[A-Za-z0-9_-]{1,64}$/)
    expect(safeId).not.toBe('call.1:x')
    expect(assistant.content).toEqual([
      { type: 'tool_use', id: safeId, name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'c2', name: 'get_weather', input: { invalid_arguments: 'not json' } },
    ])
    expect(results).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: safeId, content: '18°C' },
        { type: 'tool_result', tool_use_id: 'c2', content: '20°C', cache_control: { type: 'ephemeral' } },
      ],
    })
    expect(sent!.body.tools).toEqual([{ name: 'get_weather', input_schema: { type: 'object' } }])
    expect(sent!.body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true })
  })

  it('sends images and documents as base64 blocks, a tool’s inside its tool_result, an https image by its URL', async () => {
    const t = tag()
    const png = 'iVBORw0KGgo='
    const reply = await model.chat(
      request(`claude-echo#${t}`, {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Compare' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
              { type: 'image_url', image_url: { url: 'https://example.com/b.jpg' } },
              { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'plan.pdf' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
          },
          {
            role: 'tool',
            tool_call_id: 'c1',
            content: [
              { type: 'text', text: 'taken' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            ],
          },
        ],
      }),
    )
    expect(reply.finishReason).toBe('stop')
    const [sent] = await recorded(t)
    const [user, , results] = sent!.body.messages
    expect(user.content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/b.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }, title: 'plan.pdf' },
    ])
    expect(results.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [
          { type: 'text', text: 'taken' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        ],
        cache_control: { type: 'ephemeral' },
      },
    ])
  })

  it('streams text deltas and whole tool calls, with usage from message_start and message_delta', async () => {
    const t = tag()
    const deltas: string[] = []
    const calls: ToolCall[] = []
    const text = await model.chat(request(`claude-echo#${t}`, { onDelta: (piece) => deltas.push(piece) }))
    expect(deltas.join('')).toBe('Echo: Hello there')
    expect(deltas.length).toBeGreaterThan(1)
    expect(text.usage?.completionTokens).toBeGreaterThan(0)
    expect(text.usage?.promptTokens).toBeGreaterThan(0)
    const tools = await model.chat(
      request(`claude-tools-t1,t2#${t}`, {
        onDelta: () => {},
        onToolCall: (call) => calls.push(call),
        tools: [{ type: 'function', function: { name: 'lookup' } }],
      }),
    )
    expect(calls).toEqual([
      { id: 't1', name: 'lookup', arguments: '{"n":0}' },
      { id: 't2', name: 'lookup', arguments: '{"n":1}' },
    ])
    expect(tools.toolCalls).toEqual(calls)
    expect(tools.finishReason).toBe('tool_calls')
  })

  it('keeps thinking blocks as Anthropic’s reasoning, plain and streamed, and sends its own back first', async () => {
    const t = tag()
    const thinking = { provider: 'anthropic', type: 'thinking', thinking: 'Let me think.', signature: 'sig-123' }
    expect((await model.chat(request(`claude-think#${t}`))).reasoning).toEqual([thinking])
    const blocks: unknown[] = []
    const streamed = await model.chat(
      request(`claude-think#${t}`, { onDelta: () => {}, onReasoning: (block) => blocks.push(block) }),
    )
    expect(blocks).toEqual([thinking])
    expect(streamed.reasoning).toEqual([thinking])
    expect(streamed.content).toBe('Echo: Hello there')
    await model.chat(
      request(`claude-echo#${t}`, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello', reasoning: [thinking, { provider: 'other', type: 'summary', text: 'x' }] },
          { role: 'user', content: 'Again' },
        ],
      }),
    )
    const sent = await recorded(t)
    expect(sent.at(-1)!.body.messages[1].content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig-123' },
      { type: 'text', text: 'Hello' },
    ])
  })

  it('reads a stop sequence’s stop: finish reason stop, and the sequence, plain and streamed', async () => {
    const asked = request(`claude-echo#${tag()}`, {
      messages: [{ role: 'user', content: 'one END two' }],
      options: { stop: ['END'] },
    })
    const plain = await model.chat(asked)
    expect(plain).toMatchObject({ content: 'Echo: one ', finishReason: 'stop', stopSequence: 'END' })
    const streamed = await model.chat({ ...asked, onDelta: () => {} })
    expect(streamed).toMatchObject({ content: 'Echo: one ', finishReason: 'stop', stopSequence: 'END' })
    // No sequence met: none said.
    const ended = await model.chat({ ...asked, messages: [{ role: 'user', content: 'three' }] })
    expect(ended.finishReason).toBe('stop')
    expect(ended).not.toHaveProperty('stopSequence')
  })

  it('passes a Messages client’s other fields and anthropic-beta on', async () => {
    const t = tag()
    await model.chat(
      request(`claude-echo#${t}`, {
        anthropic: { fields: { thinking: { type: 'adaptive' } }, beta: 'interleaved-thinking-2025-05-14' },
      }),
    )
    const [sent] = await recorded(t)
    expect(sent!.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14')
    expect(sent!.body.thinking).toEqual({ type: 'adaptive' })
  })

  it('fails as the port says: 429 and 529 passed on (with retry-after), a too-long prompt, an error mid-stream', async () => {
    const limited = await failure(model.chat(request(`claude-limited#${tag()}`)))
    expect(limited.options).toMatchObject({ status: 429, passOn: { retryAfter: '7' } })
    const overloaded = await failure(model.chat(request(`claude-overloaded#${tag()}`)))
    expect(overloaded.options).toMatchObject({ status: 529, passOn: {} })
    const long = await failure(model.chat(request(`claude-long#${tag()}`)))
    expect(long.failure).toBe('context_length')
    const midway = await failure(model.chat(request(`claude-midfail#${tag()}`, { onDelta: () => {} })))
    expect(midway.options).toMatchObject({ status: 529, outputStarted: true })
  })
})
