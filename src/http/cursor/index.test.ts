import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from '.'

describe('list cursors', () => {
  it('come back as they were issued', () => {
    const cursor = { createdAt: '2026-01-01T00:00:00.000Z', id: 'chat-1' }
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor)
  })

  it.each(['not-a-cursor', btoa('[1,2]'), btoa('{"a":1}'), ''])('refuse %j with a 400 naming query.cursor', (text) => {
    expect(() => decodeCursor(text)).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: 'query.cursor: not a cursor this API issued' }),
    )
  })
})
