import { describe, expect, it } from 'vitest'
import { type ResponsesRequest, ResponsesRequestSchema } from '../../contract/schemas'
import { MediaIntake } from '../media'
import { responsesTranslation } from './request'

/** A request translated with a media intake of its own. */
const translate = (body: ResponsesRequest, references?: ReadonlyMap<string, Record<string, unknown>>) =>
  responsesTranslation(body, new MediaIntake(), references)

const request = (body: Record<string, unknown>) => ResponsesRequestSchema.parse({ model: 'm', ...body })

describe('responsesTranslation', () => {
  it('keeps reasoning items on the assistant message they come with, as the provider openai’s', async () => {
    const { translation: input } = await translate(
      request({
        input: [
          { role: 'user', content: 'q' },
          { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'gAAA' },
          { type: 'message', role: 'assistant', content: 'a' },
          { role: 'user', content: 'again' },
        ],
      }),
    )
    expect(input.messages[1]).toEqual({
      role: 'assistant',
      content: 'a',
      reasoning: [
        { provider: 'openai', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'gAAA' },
      ],
    })
    expect(input.fields).toEqual(['input[0]', 'input[2]', 'input[3]'])
  })

  it('replaces each item_reference with the item it names; one naming nothing is a 400 naming it', async () => {
    const references = new Map([
      ['msg_e1', { id: 'msg_e1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] }],
      ['fc_e1.0', { id: 'fc_e1.0', type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }],
    ])
    const input = [
      { role: 'user', content: 'q' },
      { type: 'item_reference', id: 'msg_e1' },
      { type: 'item_reference', id: 'fc_e1.0' },
      { type: 'function_call_output', call_id: 'c1', output: 'r' },
    ]
    const { translation: door } = await translate(request({ input }), references)
    expect(door.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: 'r', toolCallId: 'c1' },
    ])
    await expect(
      translate(request({ input: [...input, { type: 'item_reference', id: 'msg_gone' }] }), references),
    ).rejects.toThrow("input[4].id: Item with id 'msg_gone' not found.")
  })

  it('joins an assistant message and the calls after it, or calls alone, into one assistant message', async () => {
    const { translation: input } = await translate(
      request({
        input: [
          { role: 'user', content: 'q' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
          { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{"a":1}' },
          { type: 'function_call_output', call_id: 'c1', output: 'one' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'two' }] },
          { type: 'function_call', call_id: 'c3', name: 'f', arguments: '{}' },
          { type: 'function_call', call_id: 'c4', name: 'f', arguments: '{}' },
        ],
      }),
    )
    expect(input.messages).toEqual([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'f', arguments: '{}' },
          { id: 'c2', name: 'f', arguments: '{"a":1}' },
        ],
        reasoning: [{ provider: 'openai', type: 'reasoning', summary: [] }],
      },
      { role: 'tool', content: 'one', toolCallId: 'c1' },
      { role: 'tool', content: 'two', toolCallId: 'c2' },
      // Calls alone: no content, as the service stores a reply of calls alone.
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c3', name: 'f', arguments: '{}' },
          { id: 'c4', name: 'f', arguments: '{}' },
        ],
      },
    ])
    expect(input.fields).toEqual(['input[0]', 'input[1]', 'input[5]', 'input[6]', 'input[7]'])
  })

  it('takes instructions and every system or developer message, in order, as the system prompt', async () => {
    const { translation: input } = await translate(
      request({
        instructions: 'A',
        input: [
          { role: 'developer', content: 'B' },
          { role: 'user', content: 'q' },
          { role: 'system', content: [{ type: 'input_text', text: 'C' }] },
        ],
      }),
    )
    expect(input.request.system).toBe('A\n\nB\n\nC')
    expect(input.messages).toEqual([{ role: 'user', content: 'q' }])
  })

  it('offers function tools; the others are left out and named; a tool_choice needing one of them is refused', async () => {
    const tools = [
      { type: 'function', name: 'f', parameters: { type: 'object' } },
      { type: 'web_search' },
      { type: 'namespace', name: 'shell' },
      { type: 'mcp', server_label: 'docs' },
    ]
    const { translation: input, omitted } = await translate(
      request({ input: 'q', tools, tool_choice: { type: 'function', name: 'f' } }),
    )
    expect(input.request.tools).toEqual([{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }])
    expect(input.request.toolChoice).toEqual({ type: 'function', function: { name: 'f' } })
    expect(omitted).toEqual(['web_search', 'shell', 'docs'])
    await expect(translate(request({ input: 'q', tools, tool_choice: { type: 'web_search' } }))).rejects.toMatchObject({
      code: 'unsupported',
      message: 'tool_choice: it requires "web_search", which the service cannot offer',
    })
    await expect(translate(request({ input: 'q', tools: [{ type: 'web_search' }], tool_choice: 'required' }))).rejects.toThrow(
      /only tools the service cannot offer/,
    )
  })
})
