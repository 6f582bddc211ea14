import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { schemaOnce } from './schema'

describe('schemaOnce', () => {
  it('makes a name’s schema once, and its JSON Schema once, parsing as the schema it wraps', () => {
    let made = 0
    const make = () => {
      made++
      return z.object({ sessionId: z.string().min(1).describe('the id') })
    }
    const first = schemaOnce('test-tool', make)
    expect(schemaOnce('test-tool', make)).toBe(first)
    expect(made).toBe(1)
    const options = { target: 'draft-2020-12' }
    const json = first['~standard'].jsonSchema.input(options)
    expect(first['~standard'].jsonSchema.input(options)).toBe(json)
    expect(json).toMatchObject({
      type: 'object',
      properties: { sessionId: { type: 'string', minLength: 1, description: 'the id' } },
      required: ['sessionId'],
    })
    expect(first.safeParse({ sessionId: 'a' }).success).toBe(true)
    expect(first['~standard'].validate({ sessionId: '' })).toMatchObject({
      issues: [expect.objectContaining({ path: ['sessionId'] })],
    })
  })
})
