import { describe, expect, it } from 'vitest'
import { encodedChunks, jsonAnswer, jsonArray, jsonObject, jsonStream, requestJson } from '.'

const readJson = (stream: ReadableStream<Uint8Array>) => new Response(stream).json()

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

  it('an answer: its text when small; a stream of the same text when large, the rest generated as read', async () => {
    expect(jsonAnswer(jsonObject({ hits: jsonArray(['1', '2']), next: 'null' }))).toBe('{"hits":[1,2],"next":null}')
    let made = 0
    let closed = false
    const pieces = (function* () {
      try {
        for (let i = 0; i < 100; i++) {
          made += 1
          yield `"${'é'.repeat(16 * 1024)}"`
        }
      } finally {
        closed = true
      }
    })()
    const large = jsonAnswer(jsonArray(pieces))
    expect(large).toBeInstanceOf(ReadableStream)
    // Gathered up to 256 Ki characters (about 16 pieces), not all hundred.
    expect(made).toBeLessThan(20)
    const text = await new Response(large).text()
    expect(made).toBe(100)
    expect(JSON.parse(text)).toEqual(Array.from({ length: 100 }, () => 'é'.repeat(16 * 1024)))
    expect(closed).toBe(true)
    // A reader that cancels closes what the answer was made from.
    let cancelled = false
    const more = (function* () {
      try {
        for (;;) yield `"${'x'.repeat(64 * 1024)}",`
      } finally {
        cancelled = true
      }
    })()
    const stream = jsonAnswer(more) as ReadableStream<Uint8Array>
    const reader = stream.getReader()
    await reader.read()
    await reader.cancel()
    expect(cancelled).toBe(true)
    // A generator that throws while the text is gathered throws here.
    const failing = (function* () {
      yield '['
      throw new Error('storage went away')
    })()
    expect(() => jsonAnswer(failing)).toThrow('storage went away')
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

describe('requestJson', () => {
  /** A value as a prompt with images holds it: long base64 and data URLs (each over a megabyte: sent in many slices) beside text that JSON must escape. */
  const base64 = 'iVBORw0KGgo+/'.repeat(100_000)
  const prompt = {
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Say "hi" — ok?\n' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${base64}` } },
        ],
      },
      { role: 'tool', content: `a long result, "quoted", on lines\n${'é and more\n'.repeat(10_000)}` },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64 } }] },
      // Long, and on one line, but JSON escapes a quote or a backslash, and writes é as two bytes.
      { role: 'user', content: `say "${'x'.repeat(70_000)}" \\ ${'é'.repeat(70_000)}` },
    ],
    max_tokens: 10,
  }

  it('sends the long strings JSON writes as they are apart, the bytes exactly JSON.stringify’s, its length told', async () => {
    const json = requestJson(prompt)
    if (typeof json === 'string') throw new Error('expected a stream for a value holding long base64')
    const sent = new Uint8Array(await new Response(json.stream()).arrayBuffer())
    const expected = new TextEncoder().encode(JSON.stringify(prompt))
    expect(sent.byteLength).toBe(expected.byteLength)
    expect(json.bytes).toBe(expected.byteLength)
    expect(Buffer.from(sent).equals(Buffer.from(expected))).toBe(true)
    // A retry sends it again, whole.
    expect((await new Response(json.stream()).arrayBuffer()).byteLength).toBe(expected.byteLength)
  })

  it('hands the long strings on a slice at a time: no chunk near the whole', async () => {
    const json = requestJson(prompt)
    if (typeof json === 'string') throw new Error('expected a stream')
    const sizes: number[] = []
    for await (const chunk of json.stream() as unknown as AsyncIterable<Uint8Array>) sizes.push(chunk.byteLength)
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(json.bytes)
    // The escaped text (~0.3 MB) is written whole; each base64 string goes in 64 Ki slices.
    expect(Math.max(...sizes)).toBeLessThan(json.bytes / 4)
    expect(sizes.length).toBeGreaterThan(json.bytes / (256 * 1024))
  })

  it('is JSON.stringify’s text when no string is long, or every long one needs escaping', () => {
    const small = { messages: [{ role: 'user', content: 'hello' }] }
    expect(requestJson(small)).toBe(JSON.stringify(small))
    const escaped = { content: 'a line\n'.repeat(20_000) }
    expect(requestJson(escaped)).toBe(JSON.stringify(escaped))
  })
})
