import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { highlight, searchTextOf } from '.'

describe('the text an event is found by', () => {
  it('is its content, tool call names and arguments, tool result names and data, without labels', () => {
    expect(
      searchTextOf({
        role: 'assistant',
        content: 'Checking',
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      }),
    ).toBe('Checking\nget_weather\n{"city":"Paris"}')
    expect(searchTextOf({ role: 'tool', content: null, toolResponses: [{ id: 'c1', name: 'get_weather', data: '18°C' }] })).toBe(
      'get_weather\n18°C',
    )
  })
})

describe('highlighting a snippet', () => {
  const marked = (text: string, q: string) =>
    highlight(text, q)
      .filter((span) => span.match)
      .map((span) => span.text)

  it('marks whole words case- and accent-insensitively, prefixes and the words of phrases', () => {
    expect(highlight('We ship to Zürich on Monday', 'zurich')).toEqual([
      { text: 'We ship to ', match: false },
      { text: 'Zürich', match: true },
      { text: ' on Monday', match: false },
    ])
    expect(marked('Zurich, Zurichsee and zur', 'zur')).toEqual(['zur'])
    expect(marked('Zurich, Zurichsee and zur', 'zur*')).toEqual(['Zurich', 'Zurichsee', 'zur'])
    expect(marked('call get_weather for Paris', '"get weather"')).toEqual(['get', 'weather'])
    expect(marked('NEAR the café', 'NEAR( CAFE')).toEqual(['NEAR', 'café'])
  })

  it('marks the other forms of a word as search finds them: its stem, an irregular verb', () => {
    expect(marked('He runs fast and was running', 'run')).toEqual(['runs', 'running'])
    expect(marked('We went to the support group', 'go groups')).toEqual(['went', 'group'])
    expect(marked('deployment deployed', 'deploy*')).toEqual(['deployment', 'deployed'])
  })

  it('keeps every character of the text, in order, whatever the query', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (text, q) => {
        expect(
          highlight(text, q)
            .map((span) => span.text)
            .join(''),
        ).toBe(text)
      }),
    )
  })
})
