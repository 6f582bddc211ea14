import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { onError } from '../errors'
import { jsonBody } from '.'

/** The middleware alone in a Hono app that echoes the parsed body. */
const app = new Hono()
app.onError(onError)
app.use(jsonBody({ maxBytes: 64 }))
app.post('/', async (c) => c.json(await c.req.json()))

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  app.request('/', { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } })

/** Bytes compressed by the platform's CompressionStream. */
const compressed = async (text: string, format: 'gzip' | 'deflate') =>
  new Uint8Array(await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream(format))).arrayBuffer())
/** `{"a":[1,"é"]}` and `{"text":"x"×100}` in Brotli (made with Node's zlib). */
const BROTLI = {
  small: Uint8Array.from(atob('iwaAeyJhIjpbMSwiw6kiXX0D'), (c) => c.charCodeAt(0)),
  large: Uint8Array.from(atob('G24A+I3UYs0Z7pQieHul01eSgFYIiGB3hA=='), (c) => c.charCodeAt(0)),
}

async function expectRefused(response: Response, status: number, code: string, message: string) {
  expect(response.status).toBe(status)
  expect(await response.json()).toEqual({ error: { code, message } })
}

describe('jsonBody', () => {
  it('passes valid JSON on, and treats an empty JSON body as {}', async () => {
    expect(await (await post('{"a":[1,"é"]}')).json()).toEqual({ a: [1, 'é'] })
    expect(await (await post('  ')).json()).toEqual({})
  })

  it('keeps only the body’s text for the routes, not the bytes it was read from (a 32 MiB body held once less)', async () => {
    const kept = new Hono()
    kept.use(jsonBody({ maxBytes: 64 }))
    kept.post('/', async (c) => c.json({ cached: Object.keys(c.req.bodyCache), body: await c.req.json() }))
    const compressedBody = await compressed('{"a":1}', 'gzip')
    for (const [body, headers] of [
      ['{"a":1}', {}],
      [compressedBody, { 'Content-Encoding': 'gzip' }],
    ] as const) {
      const response = await kept.request('/', {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/json', ...headers },
      })
      expect(await response.json()).toEqual({ cached: ['text'], body: { a: 1 } })
    }
  })

  it('refuses bodies over the limit or not valid UTF-8, in the contract’s words', async () => {
    await expectRefused(
      await post(JSON.stringify({ text: 'x'.repeat(100) })),
      413,
      'payload_too_large',
      'the request body is larger than 64 bytes',
    )
    await expectRefused(
      await post(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d])),
      400,
      'invalid_request',
      'body: not valid UTF-8',
    )
  })

  it('decodes gzip, deflate and br bodies; the limit applies to the decoded size', async () => {
    const json = '{"a":[1,"é"]}'
    for (const [body, encoding] of [
      [await compressed(json, 'gzip'), 'gzip'],
      [await compressed(json, 'deflate'), 'deflate'],
      [BROTLI.small, 'br'],
      [await compressed(json, 'gzip'), 'identity, gzip'],
    ] as const) {
      const response = await post(body, { 'Content-Encoding': encoding })
      expect(response.status, encoding).toBe(200)
      expect(await response.json()).toEqual({ a: [1, 'é'] })
    }
    // 30-odd bytes of gzip or br that decode to 112: over the 64-byte limit once decoded.
    const large = JSON.stringify({ text: 'x'.repeat(100) })
    for (const [body, encoding] of [
      [await compressed(large, 'gzip'), 'gzip'],
      [BROTLI.large, 'br'],
    ] as const) {
      expect(body.length).toBeLessThan(64)
      await expectRefused(
        await post(body, { 'Content-Encoding': encoding }),
        413,
        'payload_too_large',
        'the request body is larger than 64 bytes once decoded',
      )
    }
  })

  it('refuses a body that does not decode as its Content-Encoding says (400), and other encodings (415)', async () => {
    await expectRefused(
      await post('{"a":1}', { 'Content-Encoding': 'gzip' }),
      400,
      'invalid_request',
      'body: not valid gzip (Content-Encoding says it is)',
    )
    await expectRefused(
      await post('{"a":1}', { 'Content-Encoding': 'zstd' }),
      415,
      'unsupported_media_type',
      'Content-Encoding: "zstd" is not supported (gzip, deflate or br)',
    )
  })

  it('refuses text with a lone UTF-16 surrogate, naming where; pairs and escaped backslashes are text', async () => {
    await expectRefused(
      await post('{"m":{"c":["ok","a\\ud800b"]}}'),
      400,
      'invalid_request',
      'm.c[1]: holds a lone UTF-16 surrogate (\\ud800): text must be valid Unicode',
    )
    await expectRefused(
      await post('{"m":{"\\udc00":1}}'),
      400,
      'invalid_request',
      'm.\udc00: its key holds a lone UTF-16 surrogate (\\udc00): text must be valid Unicode',
    )
    expect(await (await post('{"a":"\\ud83d\\ude00","b":"\\\\ud800"}')).json()).toEqual({ a: '😀', b: '\\ud800' })
  })
})
