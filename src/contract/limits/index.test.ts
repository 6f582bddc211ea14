import { describe, expect, it } from 'vitest'
import { contentBytes, contentTooLarge, SIZE_LIMITS } from '.'

describe('contentBytes', () => {
  it('adds up the UTF-8 bytes of the text, the tool arguments and the tool data', () => {
    expect(contentBytes({ role: 'user', content: 'héllo' })).toBe(6)
    expect(contentBytes({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":"€"}' }] })).toBe(
      11,
    )
    expect(contentBytes({ role: 'tool', content: 'ab', toolResponses: [{ id: 'c1', name: 'f', data: '𝒜' }] })).toBe(6)
  })
})

describe('contentTooLarge', () => {
  it('is a 413 naming where, only past the limit', () => {
    const at = { role: 'user' as const, content: 'x'.repeat(SIZE_LIMITS.eventContentBytes) }
    expect(contentTooLarge('events[0]', at)).toBeNull()
    const over = contentTooLarge('events[3]', { ...at, content: `${at.content}é` })
    expect(over?.status).toBe(413)
    expect(over?.message).toBe(
      `events[3]: ${SIZE_LIMITS.eventContentBytes + 2} bytes of content; the limit is ${SIZE_LIMITS.eventContentBytes} bytes per event`,
    )
  })
})
