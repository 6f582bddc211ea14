import { describe, expect, it } from 'vitest'
import { encodedChunks, jsonArray, jsonObject, jsonStream, readJson } from '.'

describe('JSON made piece by piece', () => {
  it('arrays and objects nest, with values given whole or as pieces', async () => {
    const body = jsonObject({
      events: jsonArray([JSON.stringify({ a: 1 }), jsonArray(['1', '2']), jsonObject({})]),
      empty: jsonArray([]),
      version: '3',
    })
    expect(await readJson(jsonStream(body))).toEqual({ events: [{ a: 1 }, [1, 2], {}], empty: [], version: 3 })
  })

  it('is generated only as the reader pulls', async () => {
    let made = 0
    const pieces = (function* () {
      for (let i = 0; i < 100; i++) {
        made += 1
        yield `"${'x'.repeat(16 * 1024)}"`
      }
    })()
    const reader = jsonStream(jsonArray(pieces)).getReader()
    await reader.read()
    // The first chunk needed about 64 Ki characters: four or five pieces, not all hundred.
    expect(made).toBeLessThan(10)
    await reader.cancel()
  })

  it('encodes multi-byte text exactly across chunks', async () => {
    const pieces = Array.from({ length: 30_000 }, (_, i) => `"𝒜é${i}"`)
    const chunks = [...encodedChunks(pieces)]
    expect(chunks.length).toBeGreaterThan(1)
    expect(await new Response(new Blob(chunks)).text()).toBe(pieces.join(''))
  })

  it('a generator that throws fails the stream instead of ending it early', async () => {
    const pieces = (function* () {
      yield '['
      throw new Error('storage went away')
    })()
    await expect(readJson(jsonStream(pieces))).rejects.toThrow('storage went away')
  })
})
