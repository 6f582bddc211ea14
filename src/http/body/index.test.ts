import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { onError } from '../errors'
import { jsonBody } from '.'

/** The middleware alone in a Hono app that echoes the parsed body. */
const app = new Hono()
app.onError(onError)
app.use(jsonBody({ maxBytes: 64 }))
app.post('/', async (c) => c.json(await c.req.json()))

const post = (body: BodyInit, type = 'application/json') =>
  app.request('/', { method: 'POST', body, headers: { 'Content-Type': type } })

describe('jsonBody', () => {
  it('passes valid JSON on, and treats an empty JSON body as {}', async () => {
    expect(await (await post('{"a":[1,"é"]}')).json()).toEqual({ a: [1, 'é'] })
    expect(await (await post('  ')).json()).toEqual({})
  })

  it('refuses bodies over the limit or not valid UTF-8, in the contract’s words', async () => {
    const cases: [BodyInit, number, string, string][] = [
      [JSON.stringify({ text: 'x'.repeat(100) }), 413, 'payload_too_large', 'the request body is larger than 64 bytes'],
      [new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), 400, 'invalid_request', 'body: not valid UTF-8'],
    ]
    for (const [body, status, code, message] of cases) {
      const response = await post(body)
      expect(response.status).toBe(status)
      expect(await response.json()).toEqual({ error: { code, message } })
    }
  })
})
