import { describe, expect, it } from 'vitest'
import { UpstreamError } from '../port'
import { collectStream, type StreamChunk } from '.'

const body = (...events: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(new TextEncoder().encode(`data: ${event}\n\n`))
      controller.close()
    },
  })
const json = (data: string): StreamChunk | null => JSON.parse(data)

describe('collectStream', () => {
  it('passes text on as it comes, joins tool-call pieces by index, and keeps the usage', async () => {
    const deltas: string[] = []
    const reply = await collectStream(
      body(
        JSON.stringify({ text: 'Let me ' }),
        JSON.stringify({ text: 'check.', toolCalls: [{ index: 1, id: 'b', function: { name: 'time', arguments: '{}' } }] }),
        JSON.stringify({ toolCalls: [{ index: 0, id: 'a', function: { name: 'wea', arguments: '{"ci' } }] }),
        JSON.stringify({ toolCalls: [{ index: 0, function: { name: 'ther', arguments: 'ty":"Oslo"}' } }] }),
        JSON.stringify({ finishReason: 'tool_calls', usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 } }),
        '[DONE]',
      ),
      { idleMs: 1000, onDelta: (text) => deltas.push(text), readChunk: json, source: 'the model' },
    )
    expect(deltas).toEqual(['Let me ', 'check.'])
    expect(reply).toEqual({
      content: 'Let me check.',
      toolCalls: [
        { id: 'a', name: 'weather', arguments: '{"city":"Oslo"}' },
        { id: 'b', name: 'time', arguments: '{}' },
      ],
      usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      finishReason: 'tool_calls',
      model: null, // no chunk named one
    })
  })

  it('passes each tool call on once it is whole: when the next index starts, the rest at the end; never a cut one', async () => {
    const seen: string[] = []
    const onToolCall = (call: { id: string; arguments: string }) => seen.push(`${call.id}:${call.arguments}`)
    const pieces = [
      JSON.stringify({ toolCalls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"n"' } }] }),
      JSON.stringify({ toolCalls: [{ index: 0, function: { arguments: ':0}' } }] }),
      JSON.stringify({ toolCalls: [{ index: 1, id: 'b', function: { name: 'f', arguments: '{}' } }] }),
    ]
    const options = { idleMs: 1000, onDelta: () => undefined, onToolCall, readChunk: json, source: 'the model' }
    const reply = await collectStream(body(pieces[0]!, pieces[1]!, pieces[2]!, '[DONE]'), options)
    expect(seen).toEqual(['a:{"n":0}', 'b:{}'])
    expect(reply.toolCalls.map((c) => c.id)).toEqual(['a', 'b'])
    seen.length = 0
    await expect(collectStream(body(pieces[0]!, pieces[1]!, pieces[2]!), options)).rejects.toMatchObject({
      failure: 'cut_off',
      options: { outputStarted: true },
    })
    expect(seen).toEqual(['a:{"n":0}']) // b may not be whole: it was never passed on
  })

  it('skips chunks the reader declines, and fails a stream that ends unfinished, saying output had started', async () => {
    const reply = await collectStream(body('keep-alive', JSON.stringify({ text: 'ok', finishReason: 'stop' })), {
      idleMs: 1000,
      onDelta: () => undefined,
      readChunk: (data) => (data === 'keep-alive' ? null : json(data)),
      source: 'Workers AI',
    })
    expect(reply.content).toBe('ok')
    const cut = collectStream(body(JSON.stringify({ text: 'half' })), {
      idleMs: 1000,
      onDelta: () => undefined,
      readChunk: json,
      source: 'the model',
    })
    await expect(cut).rejects.toThrow(UpstreamError)
    await expect(cut).rejects.toMatchObject({ failure: 'cut_off', options: { outputStarted: true } })
  })
})
