import { describe, expect, it } from 'vitest'
import { EventText } from '.'

describe('EventText.of', () => {
  it('renders each role with its label', () => {
    expect(EventText.of({ role: 'system', content: 'Be brief.' })).toBe('System: Be brief.')
    expect(EventText.of({ role: 'user', content: 'Hi' })).toBe('User: Hi')
    expect(EventText.of({ role: 'assistant', content: 'Hello!' })).toBe('Assistant: Hello!')
  })

  it('renders tool calls in a bracket, after the text when there is text', () => {
    const toolCalls = [
      { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { id: 'c2', name: 'time', arguments: '{}' },
    ]
    expect(EventText.of({ role: 'assistant', content: null, toolCalls })).toBe(
      'Assistant [tool calls: weather({"city":"Paris"}), time({})]',
    )
    expect(EventText.of({ role: 'assistant', content: 'Checking.', toolCalls })).toBe(
      'Assistant: Checking. [tool calls: weather({"city":"Paris"}), time({})]',
    )
  })

  it('renders tool responses with arrows', () => {
    const toolResponses = [
      { id: 'c1', name: 'weather', data: '18°C' },
      { id: 'c2', name: 'time', data: '12:00' },
    ]
    expect(EventText.of({ role: 'tool', content: null, toolResponses })).toBe('Tool [responses: weather → 18°C, time → 12:00]')
  })

  it('treats null content as empty text', () => {
    expect(EventText.of({ role: 'assistant', content: null })).toBe('Assistant: ')
  })
})
