import type { SSEStreamingApi } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import { ResponseStream } from './stream'

/** A stream that keeps what is written, each event's data parsed. */
function recorder() {
  const events: { event: string; data: Record<string, unknown> }[] = []
  const sse = {
    writeSSE: async ({ event, data }: { event: string; data: string }) => {
      events.push({ event, data: JSON.parse(data) })
    },
  }
  return { sse: sse as unknown as SSEStreamingApi, events }
}

describe('ResponseStream', () => {
  it('streams a call of a tool offered inside a namespace as the client named it, in every event that names it', async () => {
    const namespaced = new Map([['mcp__ds__list_sessions', { namespace: 'mcp__ds', name: 'list_sessions' }]])
    const stream = new ResponseStream('r1', { model: 'm', conversation: null, store: false, namespaced })
    const { sse, events } = recorder()
    await stream.toolCall(sse, { id: 'c1', name: 'mcp__ds__list_sessions', arguments: '{"query":"x"}' })
    await stream.toolCall(sse, { id: 'c2', name: 'exec_command', arguments: '{}' })
    const named = events.map(({ event, data }) => {
      const item = (data.item ?? data) as Record<string, unknown>
      return [event, item.namespace, item.name]
    })
    expect(named).toEqual([
      ['response.output_item.added', 'mcp__ds', 'list_sessions'],
      ['response.function_call_arguments.delta', undefined, undefined],
      ['response.function_call_arguments.done', undefined, 'list_sessions'],
      ['response.output_item.done', 'mcp__ds', 'list_sessions'],
      ['response.output_item.added', undefined, 'exec_command'],
      ['response.function_call_arguments.delta', undefined, undefined],
      ['response.function_call_arguments.done', undefined, 'exec_command'],
      ['response.output_item.done', undefined, 'exec_command'],
    ])
  })
})
