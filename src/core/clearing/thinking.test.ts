import { describe, expect, it } from 'vitest'
import type { Message, Reasoning } from '../events'
import { msg, user } from '../testing'
import { defaultEstimator } from '../tokens/gpt-tokenizer'
import { clearOlderThinking } from './thinking'

const thought = (text: string) => ({ provider: 'anthropic', type: 'thinking', thinking: text, signature: 'sig' })
const other = { provider: 'openai', type: 'reasoning', summary: [] }
const reply = (id: string, ...reasoning: Reasoning[]) =>
  msg(id, { role: 'assistant', content: id, ...(reasoning.length > 0 ? { reasoning } : {}) })
const reasoningOf = (events: { id: string; message: Message }[]) =>
  Object.fromEntries(events.map((event) => [event.id, (event.message.reasoning ?? []).map((block) => block.type)]))

describe('clearing thinking', () => {
  // Three turns with thinking (the second over a tool loop of two replies), one without.
  const prompt = [
    user('U1'),
    reply('A1', thought('one')),
    user('U2'),
    msg('C2', {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c', name: 't', arguments: '{}' }],
      reasoning: [thought('two')],
    }),
    msg('T2', { role: 'tool', content: null, toolResponses: [{ id: 'c', name: 't', data: 'x' }] }),
    reply('A2', thought('three'), other),
    user('U3'),
    reply('A3'),
    user('U4'),
    reply('A4', thought('four')),
  ]

  it('keeps the thinking of the newest turns that carry some, and counts the turns and tokens left out', () => {
    const { events, cleared } = clearOlderThinking(prompt, 1, 'anthropic', defaultEstimator)
    expect(reasoningOf(events)).toMatchObject({ A1: [], C2: [], A2: ['reasoning'], A4: ['thinking'] })
    expect(cleared).toEqual({ turns: 2, tokens: ['one', 'two', 'three'].reduce((n, t) => n + defaultEstimator.count(t), 0) })
    // A turn is a user message and all that answers it: its tool loop keeps or loses its thinking whole.
    expect(reasoningOf(clearOlderThinking(prompt, 2, 'anthropic', defaultEstimator).events)).toMatchObject({
      A1: [],
      C2: ['thinking'],
      A2: ['thinking', 'reasoning'],
    })
  })

  it('changes nothing with keep "all", or when no more turns carry thinking than it keeps', () => {
    for (const keep of ['all', 3, 10] as const) {
      const { events, cleared } = clearOlderThinking(prompt, keep, 'anthropic', defaultEstimator)
      expect(cleared).toEqual({ turns: 0, tokens: 0 })
      expect(events).toEqual(prompt)
    }
  })
})
