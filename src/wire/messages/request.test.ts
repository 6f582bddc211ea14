import { describe, expect, it } from 'vitest'
import { type MessagesRequest, MessagesRequestSchema } from '../../contract/schemas'
import { MediaIntake } from '../media'
import { messagesTranslation, systemPrompt } from './request'

/** A request translated with a media intake of its own. */
const translate = (body: MessagesRequest) => messagesTranslation(body, new MediaIntake())

const request = (body: Record<string, unknown>) => MessagesRequestSchema.parse({ model: 'm', max_tokens: 100, ...body })

describe('messagesTranslation', () => {
  it('maps blocks onto neutral messages, each named by the field it came from', async () => {
    const input = await translate(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 't1', name: 'read', input: { path: 'x' } },
              { type: 'tool_use', id: 't2', name: 'read', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: [
                  { type: 'text', text: 'one' },
                  { type: 'text', text: 'two' },
                ],
              },
              { type: 'tool_result', tool_use_id: 't2', content: 'three', is_error: true },
              { type: 'text', text: 'and now?' },
            ],
          },
          { role: 'system', content: 'env' },
        ],
      }),
    )
    expect(input.messages).toEqual([
      { role: 'user', content: 'a\nb' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 't1', name: 'read', arguments: '{"path":"x"}' },
          { id: 't2', name: 'read', arguments: '{}' },
        ],
        reasoning: [{ provider: 'anthropic', type: 'thinking', thinking: 'hmm', signature: 'sig' }],
      },
      { role: 'tool', content: 'one\ntwo', toolCallId: 't1' },
      { role: 'tool', content: 'three', toolCallId: 't2', isError: true },
      { role: 'user', content: 'and now?' },
      { role: 'system', content: 'env' },
    ])
    expect(input.fields).toEqual([
      'messages[0]',
      'messages[1]',
      'messages[2].content[0]',
      'messages[2].content[1]',
      'messages[2]',
      'messages[3]',
    ])
    expect(input.shown).toEqual({ inline: true, toolIds: 'anthropic' })
  })

  it('leaves out an assistant message of thinking only, and a user message of tool results has no text message', async () => {
    const input = await translate(
      request({
        messages: [
          { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xx' }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1' }] },
        ],
      }),
    )
    expect(input.messages).toEqual([{ role: 'tool', content: '', toolCallId: 't1' }])
  })

  it('takes the client tools as function tools, server tools left out, and tool_choice in the turn’s names', async () => {
    const input = await translate(
      request({
        messages: [{ role: 'user', content: 'x' }],
        tools: [
          { name: 'read', description: 'Reads', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
          { type: 'web_search_20250305', name: 'web_search' },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        stop_sequences: ['END'],
        temperature: 0.5,
      }),
    )
    expect(input.request).toMatchObject({
      tools: [{ type: 'function', function: { name: 'read', description: 'Reads', parameters: { type: 'object' } } }],
      toolChoice: 'required',
      parallelToolCalls: false,
      options: { temperature: 0.5, maxTokens: 100, stop: ['END'] },
    })
  })
})

describe('systemPrompt', () => {
  it('joins text blocks with a newline, without the billing line Claude Code puts first', () => {
    expect(
      systemPrompt([
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1; cc_entrypoint=cli' },
        { type: 'text', text: 'You are Claude Code.' },
      ]),
    ).toBe('You are Claude Code.')
    expect(systemPrompt('x-anthropic-billing-header: a\nBe brief.')).toBe('Be brief.')
    expect(systemPrompt('')).toBeUndefined()
    expect(systemPrompt(undefined)).toBeUndefined()
  })
})
