import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from '.'

describe('list cursors', () => {
  it('come back as they were issued, in either order', () => {
    for (const order of ['created', 'updated'] as const) {
      const cursor = { at: '2026-01-01T00:00:00.000Z', id: 'chat-1', order }
      expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor)
    }
    // One issued before orders: a list by creation.
    expect(decodeCursor(btoa(JSON.stringify(['2026-01-01T00:00:00.000Z', 'chat-1'])))).toMatchObject({ order: 'created' })
  })

  it.each(['not-a-cursor', btoa('[1,2]'), btoa('{"a":1}'), btoa('["a","b","sideways"]'), ''])(
    'refuse %j with a 400 naming query.cursor',
    (text) => {
      expect(() => decodeCursor(text)).toThrow(
        expect.objectContaining({ code: 'invalid_request', message: 'query.cursor: not a cursor this API issued' }),
      )
    },
  )
})
