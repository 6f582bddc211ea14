import { describe, expect, it } from 'vitest'
import { UpstreamError } from '../port'
import { type AiBinding, workersAI } from '.'

/**
 * A test double of the `AI` binding, answering in the platform's documented shapes. The real binding
 * runs only on Cloudflare's network (it needs a login), so it cannot run in these offline tests;
 * everything else model-facing is faked at the wire (test/upstream/fake-openai.ts).
 */
function fakeAI(answer: (input: Record<string, unknown>) => unknown) {
  const calls: { model: string; input: Record<string, unknown> }[] = []
  const binding: AiBinding = {
    async run(model, input) {
      calls.push({ model, input })
      return answer(input)
    },
  }
  return { binding, calls }
}

const sse = (...lines: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const line of lines) controller.enqueue(new TextEncoder().encode(line))
      controller.close()
    },
  })

const request = (onDelta?: (text: string) => void) => ({
  model: '@cf/meta/llama-3.1-8b-instruct',
  messages: [{ role: 'user' as const, content: 'Hi' }],
  maxTokens: 300,
  onDelta,
})

describe('workersAI', () => {
  it('always passes max_tokens and reads the older { response, usage, tool_calls } shape', async () => {
    const { binding, calls } = fakeAI(() => ({
      response: 'Hello!',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }],
    }))
    const reply = await workersAI({ binding, timeoutMs: 1000 }).chat(request())
    expect(calls[0]).toEqual({
      model: '@cf/meta/llama-3.1-8b-instruct',
      input: { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 300, stream: false },
    })
    expect(reply).toEqual({
      content: 'Hello!',
      toolCalls: [{ id: '', name: 'lookup', arguments: '{"q":"x"}' }],
      usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 },
      finishReason: null,
    })
  })

  it('reads the OpenAI-style { choices, usage } shape', async () => {
    const { binding } = fakeAI(() => ({
      choices: [{ message: { role: 'assistant', content: 'Hi back' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
    }))
    const reply = await workersAI({ binding, timeoutMs: 1000 }).chat(request())
    expect(reply).toMatchObject({ content: 'Hi back', finishReason: 'stop', usage: { totalTokens: 6 } })
  })

  it('parses its stream forgivingly: heartbeats, a usage chunk, [DONE]', async () => {
    const { binding, calls } = fakeAI(() =>
      sse(
        ': heartbeat\n\n',
        'data: {"response":"Hel","p":"abc"}\n\n',
        'data: \n\n',
        'data: {"response":"lo"}\n\ndata: {"response":"","usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n',
        'data: [DONE]\n\n',
      ),
    )
    const deltas: string[] = []
    const reply = await workersAI({ binding, timeoutMs: 1000 }).chat(request((t) => deltas.push(t)))
    expect(calls[0]!.input.stream).toBe(true)
    expect(deltas).toEqual(['Hel', 'lo'])
    expect(reply).toMatchObject({ content: 'Hello', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } })
  })

  it('parses OpenAI-style stream chunks too', async () => {
    const { binding } = fakeAI(() =>
      sse(
        'data: {"choices":[{"delta":{"content":"A"}}]}\n\n',
        'data: {"choices":[{"delta":{"content":"B"},"finish_reason":"stop"}]}\n\n',
        'data: [DONE]\n\n',
      ),
    )
    const deltas: string[] = []
    expect((await workersAI({ binding, timeoutMs: 1000 }).chat(request((t) => deltas.push(t)))).content).toBe('AB')
    expect(deltas).toEqual(['A', 'B'])
  })

  it('fails a stream cut off midway, after output', async () => {
    const { binding } = fakeAI(() => sse('data: {"response":"Hel"}\n\n'))
    const error = await workersAI({ binding, timeoutMs: 1000 })
      .chat(request(() => undefined))
      .catch((e) => e)
    expect(error).toBeInstanceOf(UpstreamError)
    expect([error.failure, error.options.outputStarted]).toEqual(['cut_off', true])
  })

  it('maps thrown errors and timeouts', async () => {
    const capacity = fakeAI(() => {
      throw new Error('3040: Capacity temporarily exceeded')
    })
    const e1 = await workersAI({ binding: capacity.binding, timeoutMs: 1000 })
      .chat(request())
      .catch((e) => e)
    expect([e1.failure, e1.retryable]).toEqual(['status', true])
    const long = fakeAI(() => {
      throw new Error('input exceeds the context window of the model')
    })
    expect(
      (
        await workersAI({ binding: long.binding, timeoutMs: 1000 })
          .chat(request())
          .catch((e) => e)
      ).failure,
    ).toBe('context_length')
    const hang = fakeAI(() => new Promise(() => undefined))
    expect(
      (
        await workersAI({ binding: hang.binding, timeoutMs: 50 })
          .chat(request())
          .catch((e) => e)
      ).failure,
    ).toBe('timeout')
    const odd = fakeAI(() => 42)
    expect(
      (
        await workersAI({ binding: odd.binding, timeoutMs: 1000 })
          .chat(request())
          .catch((e) => e)
      ).failure,
    ).toBe('malformed')
  })
})

describe('workersAI tool calls', () => {
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }]
  const calling = (onDelta?: (text: string) => void, onToolCall?: (call: unknown) => void) => ({
    ...request(onDelta),
    tools,
    toolChoice: 'auto' as const,
    parallelToolCalls: true,
    onToolCall,
  })

  it('sends the tools it takes (no tool_choice, no parallel_tool_calls) and reads OpenAI-style calls with ids', async () => {
    const { binding, calls } = fakeAI(() => ({
      choices: [
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'chatcmpl-tool-1', type: 'function', function: { name: 'lookup', arguments: '{"q":"a"}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    }))
    const reply = await workersAI({ binding, timeoutMs: 1000 }).chat(calling())
    expect(calls[0]!.input.tools).toEqual(tools)
    expect(calls[0]!.input).not.toHaveProperty('tool_choice')
    expect(calls[0]!.input).not.toHaveProperty('parallel_tool_calls')
    expect(reply).toMatchObject({ content: null, toolCalls: [{ id: 'chatcmpl-tool-1', name: 'lookup', arguments: '{"q":"a"}' }] })
  })

  it('reads the older calls without ids, arguments as an object, and no response text', async () => {
    const { binding } = fakeAI(() => ({
      tool_calls: [
        { name: 'lookup', arguments: { q: 'a' } },
        { name: 'lookup', arguments: { q: 'b' } },
      ],
    }))
    const reply = await workersAI({ binding, timeoutMs: 1000 }).chat(calling())
    expect(reply.toolCalls).toEqual([
      { id: '', name: 'lookup', arguments: '{"q":"a"}' },
      { id: '', name: 'lookup', arguments: '{"q":"b"}' },
    ])
  })

  it('streamed, in either shape: calls put together and passed on whole, in order', async () => {
    const older = fakeAI(() =>
      sse(
        'data: {"response":"","tool_calls":[{"name":"lookup","arguments":{"q":"a"}},{"name":"lookup","arguments":{"q":"b"}}]}\n\n',
        'data: [DONE]\n\n',
      ),
    )
    const seen: unknown[] = []
    const reply = await workersAI({ binding: older.binding, timeoutMs: 1000 }).chat(
      calling(
        () => undefined,
        (c) => seen.push(c),
      ),
    )
    expect(reply.toolCalls.map((c) => c.arguments)).toEqual(['{"q":"a"}', '{"q":"b"}'])
    expect(seen).toEqual(reply.toolCalls)

    const openai = fakeAI(() =>
      sse(
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t1","type":"function","function":{"name":"lookup","arguments":""}}]}}]}\n\n',
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"q\\":"}}]}}]}\n\n',
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"a\\"}"}}]}}]}\n\n',
        'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n',
        'data: [DONE]\n\n',
      ),
    )
    const whole = await workersAI({ binding: openai.binding, timeoutMs: 1000 }).chat(calling(() => undefined))
    expect(whole.toolCalls).toEqual([{ id: 't1', name: 'lookup', arguments: '{"q":"a"}' }])
  })

  it('sends images as image_url parts (its vision models take them), a tool’s after the tool messages, and documents as a line naming each', async () => {
    const { binding, calls } = fakeAI(() => ({ response: 'A cat.' }))
    const png = 'data:image/png;base64,iVBORw0KGgo='
    await workersAI({ binding, timeoutMs: 1000 }).chat({
      model: '@cf/meta/llama-4-scout-17b-16e-instruct',
      maxTokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: png } },
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
            { type: 'image_url', image_url: { url: png } },
          ],
        },
      ],
    })
    expect(calls[0]!.input.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: png } },
          { type: 'text', text: '[document: plan.pdf]' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'taken' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[images returned by tool call c1]' },
          { type: 'image_url', image_url: { url: png } },
        ],
      },
    ])
  })
})
