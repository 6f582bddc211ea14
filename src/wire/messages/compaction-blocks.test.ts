import { describe, expect, it } from 'vitest'
import { type MessagesRequest, MessagesRequestSchema } from '../../contract/schemas'
import { sinceCompaction } from './compaction-blocks'

const messagesOf = (messages: unknown[]): MessagesRequest['messages'] =>
  MessagesRequestSchema.parse({ model: 'm', max_tokens: 10, messages }).messages

const block = (token: string | null, content: string | null = 'Summary.') => ({
  type: 'compaction',
  content,
  encrypted_content: token,
})
const text = (value: string) => ({ type: 'text', text: value })

describe('sinceCompaction', () => {
  it('reads every message when none holds a compaction block', () => {
    const messages = messagesOf([{ role: 'user', content: 'Hi' }])
    expect(sinceCompaction(messages)).toEqual({ since: [{ at: 0, message: messages[0] }], capsule: null })
  })

  it('starts after the newest block that names a compaction: what follows it in its message, then the rest', () => {
    const messages = messagesOf([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: [block('old'), text('Echo: One')] },
      { role: 'user', content: 'Two' },
      { role: 'assistant', content: [text('Before.'), block('new'), text('Echo: Two')] },
      { role: 'user', content: 'Three' },
    ])
    const { since, capsule } = sinceCompaction(messages)
    expect(capsule).toEqual({ token: 'new', field: 'messages[3].content[1].encrypted_content' })
    expect(since).toEqual([
      { at: 3, message: { role: 'assistant', content: [text('Echo: Two')] } },
      { at: 4, message: messages[4] },
    ])
  })

  it('leaves the block’s message out when nothing follows the block in it (a paused compaction’s answer)', () => {
    const messages = messagesOf([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: [block('t')] },
    ])
    expect(sinceCompaction(messages).since).toEqual([])
  })

  it('takes a failed compaction’s block (neither summary nor capsule) for nothing, and leaves it out', () => {
    const messages = messagesOf([
      { role: 'user', content: 'One' },
      { role: 'assistant', content: [block(null, null), text('Echo: One')] },
      { role: 'assistant', content: [{ type: 'compaction', content: null }] },
    ])
    const { since, capsule } = sinceCompaction(messages)
    expect(capsule).toBeNull()
    expect(since).toEqual([
      { at: 0, message: messages[0] },
      { at: 1, message: { role: 'assistant', content: [text('Echo: One')] } },
    ])
  })

  it('names a block with a summary but no capsule, for the door to refuse', () => {
    const messages = messagesOf([
      { role: 'assistant', content: [block(null)] },
      { role: 'user', content: 'Two' },
    ])
    expect(sinceCompaction(messages).capsule).toEqual({ token: '', field: 'messages[0].content[0].encrypted_content' })
  })
})
