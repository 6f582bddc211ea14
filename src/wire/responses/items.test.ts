/** Where blobs are read: these events hold none. */
const noBlobs = (ref: string) => `https://svc.example/v1/sessions/s1/blobs/${ref}`

import { describe, expect, it } from 'vitest'
import { itemsOf, itemTarget } from './items'

describe('items', () => {
  it('name their event and place: every item of an event is found again by its id', () => {
    const assistant = {
      id: 'evt.1',
      message: {
        role: 'assistant' as const,
        content: 'Looking.',
        toolCalls: [
          { id: 'c1', name: 'f', arguments: '{}' },
          { id: 'c2', name: 'g', arguments: '{"a":1}' },
        ],
        reasoning: [
          { provider: 'openai', type: 'reasoning', summary: [] },
          { provider: 'anthropic', type: 'thinking', thinking: 'hidden' },
        ],
      },
    }
    const items = itemsOf(assistant, noBlobs)
    expect(items.map((item) => [item.id, item.type])).toEqual([
      ['rs_evt.1.0', 'reasoning'],
      ['msg_evt.1', 'message'],
      ['fc_evt.1.0', 'function_call'],
      ['fc_evt.1.1', 'function_call'],
    ])
    expect(items.map((item) => itemTarget(item.id as string))).toEqual([
      { eventId: 'evt.1', kind: 'reasoning', index: 0 },
      { eventId: 'evt.1', kind: 'message', index: 0 },
      { eventId: 'evt.1', kind: 'call', index: 0 },
      { eventId: 'evt.1', kind: 'call', index: 1 },
    ])
    expect(items[3]).toMatchObject({ call_id: 'c2', name: 'g', arguments: '{"a":1}' })
  })

  it('shows a tool event as its outputs and a user message with input_text', () => {
    const tool = {
      id: 'e2',
      message: { role: 'tool' as const, content: null, toolResponses: [{ id: 'c1', name: 'f', data: 'ok' }] },
    }
    expect(itemsOf(tool, noBlobs)).toEqual([
      { id: 'fco_e2.0', type: 'function_call_output', status: 'completed', call_id: 'c1', output: 'ok' },
    ])
    expect(itemsOf({ id: 'e3', message: { role: 'user', content: 'Hi' } }, noBlobs)).toEqual([
      { id: 'msg_e3', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
    ])
  })

  it('no other id names an item', () => {
    for (const id of ['msg_', 'fc_e1', 'fc_.0', 'fc_e1.x', 'resp_e1', 'e1', 'fco_e1.12345']) expect(itemTarget(id), id).toBeNull()
  })
})
