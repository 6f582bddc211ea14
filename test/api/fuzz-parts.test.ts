/**
 * Images and documents fuzzed through every door (round4.md §1): random part types, media types,
 * sizes and sources (base64 whole or broken, data URLs, https and other URLs, blobs the session
 * holds or not, blob URLs of other sessions), bytes whose signature lies about the declared type.
 * Never a 500; a 4xx is the door's own error shape naming the field, and writes nothing: neither
 * an event nor a blob.
 */

import { exports } from 'cloudflare:workers'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { gif, jpeg, pdf, png, pngHeader, webpLossless, webpLossy } from '../../src/core/media/fixtures'
import { sha256Hex } from '../../src/core/media/sha256'
import { append, type Call, call, newSessionId, tokenFor } from '../helpers'
import { blobRows } from '../support/blob-rows'
import { expectAnthropicError } from '../support/messages-door'

const PNG = png(4, 3)
const TEXT = new TextEncoder().encode('Minutes: the walrus budget was approved.\n')

/** A session of alice's holding {@link PNG}, and bob's: the blobs (and blob URLs) a part may name. */
let held: { blob: string; url: string; bobsUrl: string }

beforeAll(async () => {
  const blob = `sha256:${await sha256Hex(PNG)}`
  const alices = newSessionId('fuzz-parts-held')
  const bobs = newSessionId('fuzz-parts-bob')
  const image = { message: { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: encodeBase64(PNG) }] } }
  await append(alices, [image])
  await append(bobs, [image], 'bob')
  held = {
    blob,
    url: `https://sessions.test/v1/sessions/${alices}/blobs/${blob}`,
    bobsUrl: `https://sessions.test/v1/sessions/${bobs}/blobs/${blob}`,
  }

  // The file's first request loads the Worker: seconds on a 2-core machine (as a test's timeout allows).
}, 30_000)

/** A file of a supported kind, its bytes and the type they are. */
const supported = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 })).map(([w, h]) => ['image/png', png(w, h)] as const),
  // A PNG's header alone, claiming any size (up to 2³²−1 a side): estimates read the size from it.
  fc.tuple(fc.nat(), fc.nat()).map(([w, h]) => ['image/png', pngHeader(w, h)] as const),
  fc.constantFrom(
    ['image/jpeg', jpeg(3, 2)] as const,
    ['image/gif', gif(2, 2)] as const,
    ['image/webp', webpLossy(2, 2)] as const,
    ['image/webp', webpLossless(2, 1)] as const,
    ['application/pdf', pdf(2)] as const,
    ['text/plain', TEXT] as const,
  ),
)
const mediaType = fc.oneof(
  fc.constantFrom(
    'image/png',
    'image/jpeg',
    'image/gif',
    'image/webp',
    'application/pdf',
    'text/plain',
    'image/bmp',
    'image/svg+xml',
    'text/html',
    'IMAGE/PNG',
    'image/png; charset=utf-8',
    '',
  ),
  fc.string({ maxLength: 20 }),
)
/** Bytes of no kind: truncated, random, empty. */
const unsupported = fc.oneof(
  fc.nat({ max: PNG.byteLength - 1 }).map((n) => PNG.slice(0, n)),
  fc.uint8Array({ maxLength: 48 }),
  fc.constant(new Uint8Array()),
)
/** A declared type and bytes: mostly the type the bytes are, else a lie, a type of no kind or bytes of none. */
const file = fc.oneof(
  { weight: 4, arbitrary: supported.map(([type, bytes]) => ({ mediaType: type as string, bytes })) },
  { weight: 1, arbitrary: fc.tuple(mediaType, supported).map(([type, [, bytes]]) => ({ mediaType: type, bytes })) },
  { weight: 1, arbitrary: fc.tuple(mediaType, unsupported).map(([type, bytes]) => ({ mediaType: type, bytes })) },
)
/** An image part's type for image types, a document's for others; now and then the other one. */
const partTypeOf = (mediaType: string, swapped: boolean) => (mediaType.startsWith('image/') !== swapped ? 'image' : 'document')
/** Base64 of the bytes, mostly whole, else broken in one of the ways clients break it. */
const encode = (raw: Uint8Array) =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.constant('whole') },
      { weight: 1, arbitrary: fc.constantFrom('unpadded', 'bang', 'space', 'url-safe', 'short', 'newline') },
    )
    .map((how) => {
      const whole = encodeBase64(raw)
      if (how === 'unpadded') return whole.replace(/=+$/, '')
      if (how === 'bang') return `${whole.slice(0, 3)}!${whole.slice(3)}`
      if (how === 'space') return ` ${whole}`
      if (how === 'url-safe') return whole.replaceAll('+', '-').replaceAll('/', '_')
      if (how === 'short') return whole.slice(0, -1)
      if (how === 'newline') return `${whole.slice(0, 4)}\n${whole.slice(4)}`
      return whole
    })
/** A file as its declared type and base64. */
const encoded = file.chain(({ mediaType, bytes }) => encode(bytes).map((data) => ({ mediaType, data })))
const base64 = encoded.map(({ data }) => data)
const dataUrl = encoded.map(({ mediaType, data }) => `data:${mediaType};base64,${data}`)
const hex64 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(''))
/** A blob reference: the one the session holds, one it does not, and malformed ones. */
const blobRef = fc.oneof(
  fc.constant('held'),
  hex64.map((hex) => `sha256:${hex}`),
  fc.constantFrom('sha256:', 'sha256:XYZ', `md5:${'0'.repeat(32)}`, 'sha256:../../etc'),
  fc.string({ maxLength: 20 }),
)
/** A URL as an image_url, input_image or url source may carry it. */
const url = fc.oneof(
  { weight: 4, arbitrary: dataUrl },
  fc.constantFrom(
    'https://example.com/cat.png',
    'http://example.com/cat.png',
    'ftp://example.com/cat.png',
    'javascript:alert(1)',
    'data:,hello',
    'data:text/plain,hello',
    'https://',
    'heldUrl',
    'bobsUrl',
  ),
  hex64.map((hex) => `https://sessions.test/v1/sessions/nobody/blobs/sha256:${hex}`),
  fc.webUrl(),
  fc.string({ maxLength: 30 }),
)
const text = fc.string({ maxLength: 30 })

/** Replaces the placeholders of the generated bodies with what beforeAll made. */
const resolved = (body: unknown) =>
  JSON.stringify(body)
    .replaceAll('"held"', JSON.stringify(held.blob))
    .replaceAll('"heldUrl"', JSON.stringify(held.url))
    .replaceAll('"bobsUrl"', JSON.stringify(held.bobsUrl))

/** Anything a part array might hold that is no part of this door. */
const junk = fc.oneof(
  fc.record({ type: fc.constantFrom('audio', 'video', 'file', 'input_audio', 'image_url', 'input_image', 'image', '', 'TEXT') }),
  fc.jsonValue({ maxDepth: 2 }),
)

async function send(path: string, body: string, headers: Record<string, string> = {}): Promise<Call> {
  return call('POST', path, { body, headers })
}

/** What a session holds: its version (null when absent) and its blob rows. */
async function holdings(id: string) {
  const session = await call('GET', `/v1/sessions/${id}`)
  return { version: session.status === 200 ? (session.body.version as number) : null, ...(await blobRows(id)) }
}

/**
 * A 4xx in the native contract's shape, its message starting with the field it names (but a
 * prompt too large for the model, which is no one field's fault).
 */
function expectNativeError(result: Call) {
  expect(Object.keys(result.body ?? {}), result.text).toEqual(['error'])
  expect(Object.keys(result.body.error).sort(), result.text).toEqual(['code', 'message'])
  if (result.body.error.code !== 'context_overflow') expect(result.body.error.message, result.text).toMatch(FIELD_FIRST)
}
/** `events[0].message.content[1].data: …`: a field's path, then what is wrong with it. */
const FIELD_FIRST = /^[A-Za-z_]+(\[\d+\]|\.[A-Za-z_]+)*: /

/** A 4xx in OpenAI's shape, `param` naming the field. */
function expectOpenAIError(result: Call) {
  expect(Object.keys(result.body ?? {}), result.text).toEqual(['error'])
  expect(Object.keys(result.body.error).sort(), result.text).toEqual(['code', 'message', 'param', 'type'])
  expect(result.body.error.param, result.text).toMatch(/^[A-Za-z_]+(\[\d+\]|\.[A-Za-z_]+)*$/)
}

/** The door's request `body` (JSON) never answers 5xx; a 4xx is `expectShape` and changes nothing of session `id`. */
async function expectHarmless(id: string, path: string, body: string, expectShape: (result: Call) => void, headers = {}) {
  const before = await holdings(id)
  const result = await send(path, body, headers)
  const what = `${path} ${body.slice(0, 400)} → ${result.status} ${result.text.slice(0, 400)}`
  expect(result.status, what).toBeLessThan(500)
  if (result.status >= 400) {
    expectShape(result)
    expect(await holdings(id), what).toEqual(before)
  }
  return result
}

const RUNS = { numRuns: 80, seed: 4242 }

describe('parts on the native API, fuzzed', () => {
  const source = (data: string, mediaType: string) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({ data }) },
      { weight: 2, arbitrary: fc.constant({ url: `data:${mediaType};base64,${data}` }) },
      { weight: 1, arbitrary: url.map((url) => ({ url })) },
      { weight: 2, arbitrary: blobRef.map((blob) => ({ blob })) },
      { weight: 1, arbitrary: fc.constantFrom({}, { data, url: 'https://example.com/a.png' }) },
    )
  const odd = fc.record(
    { title: fc.oneof(text, fc.integer()), detail: fc.constantFrom('auto', 'low', 'high', 'x'), width: fc.integer() },
    { requiredKeys: [] },
  )
  /** A part the API takes: text, or a supported file by its data, its data URL or the blob the session holds. */
  const valid = fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.string({ minLength: 1, maxLength: 30 }) }),
    fc.tuple(supported, fc.constantFrom('data', 'url', 'blob')).map(([[mediaType, bytes], source]) => {
      const data = encodeBase64(bytes)
      if (source === 'blob') return { type: 'image', blob: 'held' }
      const from = source === 'data' ? { data } : { url: `data:${mediaType};base64,${data}` }
      return { type: partTypeOf(mediaType, false), mediaType, ...from }
    }),
  )
  /** An image or document part as anything might send it: any declared type and bytes, one source (or two, or none), odd fields. */
  const hostile = fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.oneof(text, fc.integer()) }),
    fc
      .tuple(encoded, fc.boolean())
      .chain(([{ mediaType, data }, swapped]) =>
        fc
          .tuple(source(data, mediaType), fc.oneof(fc.constant({}), odd))
          .map(([from, extra]) => ({ type: partTypeOf(mediaType, swapped), mediaType, ...from, ...extra })),
      ),
    junk,
  )
  /** Valid parts, and now and then one hostile part among them: a 4xx names that part. */
  const content = fc
    .tuple(fc.array(valid as fc.Arbitrary<unknown>, { maxLength: 3 }), fc.option(hostile, { freq: 2 }), fc.nat())
    .map(([parts, one, at]) => (one === null ? parts : parts.toSpliced(at % (parts.length + 1), 0, one)))
  let calls = 0
  const request = fc.oneof(
    content.map((parts) => ({ route: 'events', body: { events: [{ message: { role: 'user', content: parts } }] } })),
    content.map((parts) => {
      const id = `shot_${++calls}`
      return {
        route: 'events',
        body: {
          events: [
            { message: { role: 'assistant', content: null, toolCalls: [{ id, name: 'screenshot', arguments: '{}' }] } },
            { message: { role: 'tool', content: null, toolResponses: [{ id, name: 'screenshot', data: parts }] } },
          ],
        },
      }
    }),
    content.map((parts) => ({ route: 'turns', body: { model: 'echo', content: parts } })),
  )

  it('events and turns: never a 5xx; a 4xx names the part and writes no event and no blob', async () => {
    const id = newSessionId('fuzz-parts')
    await append(id, [
      { message: { role: 'user', content: [{ type: 'image', mediaType: 'image/png', data: encodeBase64(PNG) }] } },
    ])
    await fc.assert(
      fc.asyncProperty(request, async ({ route, body }) => {
        const result = await expectHarmless(id, `/v1/sessions/${id}/${route}`, resolved(body), expectNativeError)
        if (result.status >= 400) return
        // What was stored names only blobs the session answers.
        const named = [...result.text.matchAll(/"blob":"(sha256:[0-9a-f]{64})"/g)].map((m) => m[1]!)
        for (const blob of new Set(named)) expect((await blobAt(id, blob)).status, blob).toBe(200)
      }),
      RUNS,
    )
  })
})

describe('parts on the doors, fuzzed (each run a new session: a 4xx leaves it absent)', () => {
  it('Chat Completions: image_url and file parts, in user and tool messages', async () => {
    const chatPart = fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record(
        {
          type: fc.constant('image_url'),
          image_url: fc.record({ url, detail: fc.constantFrom('auto', 'low', 'high', 'x') }, { requiredKeys: ['url'] }),
        },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        {
          type: fc.constant('file'),
          file: fc.record({ file_data: fc.oneof(dataUrl, base64), filename: text, file_id: text }, { requiredKeys: [] }),
        },
        { requiredKeys: ['type'] },
      ),
      junk,
    )
    const parts = fc.array(chatPart, { maxLength: 4 })
    const messages = fc.oneof(
      parts.map((content) => [{ role: 'user', content }]),
      parts.map((content) => [
        { role: 'user', content: 'Take a screenshot' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content },
      ]),
    )
    await fc.assert(
      fc.asyncProperty(messages, async (sent) => {
        const id = newSessionId('fuzz-chat-parts')
        // The chat door answers errors in this API's own shape (docs/http-api.md), not OpenAI's.
        await expectHarmless(id, '/v1/chat/completions', resolved({ model: 'echo', messages: sent }), expectNativeError, {
          'X-Session-Id': id,
        })
      }),
      RUNS,
    )
  })

  it('Messages: image and document blocks in user content and inside tool_result', async () => {
    const imageSource = fc.oneof<fc.MaybeWeightedArbitrary<unknown>[]>(
      { weight: 3, arbitrary: encoded.map(({ mediaType, data }) => ({ type: 'base64', media_type: mediaType, data })) },
      fc.record({ type: fc.constant('base64'), media_type: mediaType, data: base64 }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constant('url'), url }),
      fc.record({ type: fc.constantFrom('file', 'text', 'content', 'x'), file_id: text, data: text }, { requiredKeys: ['type'] }),
      fc.jsonValue({ maxDepth: 1 }),
    )
    const documentSource = fc.oneof(
      imageSource,
      fc.record({
        type: fc.constant('text'),
        media_type: fc.constantFrom('text/plain', 'text/html'),
        data: fc.oneof(text, fc.integer()),
      }),
      fc.record({
        type: fc.constant('content'),
        content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }))),
      }),
    )
    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text }),
      fc.record({ type: fc.constant('image'), source: imageSource }, { requiredKeys: ['type'] }),
      fc.record(
        {
          type: fc.constant('document'),
          source: documentSource,
          title: fc.oneof(text, fc.integer()),
          context: text,
          citations: fc.record({ enabled: fc.boolean() }),
        },
        { requiredKeys: ['type'] },
      ),
      junk,
    )
    const blocks = fc.array(block, { maxLength: 4 })
    const messages = fc.oneof(
      blocks.map((content) => [{ role: 'user', content }]),
      fc.tuple(blocks, fc.oneof(blocks, text)).map(([inResult, beside]) => [
        { role: 'user', content: 'Read the screenshot' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: inResult },
            ...(typeof beside === 'string' ? [] : beside),
          ],
        },
      ]),
    )
    await fc.assert(
      fc.asyncProperty(messages, async (sent) => {
        const id = newSessionId('fuzz-messages-parts')
        await expectHarmless(
          id,
          '/v1/messages',
          resolved({ model: 'echo', max_tokens: 100, messages: sent }),
          (result) => {
            expectAnthropicError(result, result.status, result.body?.error?.type)
            expect(result.body.error.message, result.text).toMatch(/(^|\s)[A-Za-z_]+(\[\d+\]|\.[A-Za-z_]+)*: /)
          },
          { 'X-Session-Id': id, 'anthropic-version': '2023-06-01' },
        )
      }),
      RUNS,
    )
  })

  it('Messages: a tool_result whose content holds a part that is no object is a 400 naming it, not a 500 (found by the fuzz)', async () => {
    for (const part of [null, 7, 'text', []]) {
      const id = newSessionId('fuzz-messages-parts')
      const result = await send(
        '/v1/messages',
        JSON.stringify({
          model: 'echo',
          max_tokens: 100,
          messages: [
            { role: 'user', content: 'Read the screenshot' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [part] }] },
          ],
        }),
        { 'X-Session-Id': id, 'anthropic-version': '2023-06-01' },
      )
      expectAnthropicError(result, 400, 'invalid_request_error', /^messages\[2\]\.content\[0\]\.content: /)
      expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
    }
  })

  it('Responses: a part with no type, or no object at all, is an invalid request naming it (found by the fuzz: it was an unsupported "undefined" part)', async () => {
    for (const [part, named] of [
      [{}, 'input[0].content[0].type: is required'],
      [{ text: 'hi' }, 'input[0].content[0].type: is required'],
      [{ type: 7 }, 'input[0].content[0].type: is required'],
      [null, 'input[0].content[0]: must be a content part (an object with a type)'],
      [5, 'input[0].content[0]: must be a content part (an object with a type)'],
      [['input_text'], 'input[0].content[0]: must be a content part (an object with a type)'],
    ] as const) {
      const id = newSessionId('fuzz-responses-parts')
      const result = await send(
        '/v1/responses',
        JSON.stringify({ model: 'echo', input: [{ type: 'message', role: 'user', content: [part] }] }),
        { 'X-Session-Id': id },
      )
      expect(result.status, result.text).toBe(400)
      expect(result.body.error, JSON.stringify(part)).toMatchObject({ code: 'invalid_request', message: named })
      expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
    }
  })

  /** Responses input items: a user message of parts, or a call and its output of parts (or text). */
  const responsesInput = (() => {
    const inputPart = fc.oneof(
      fc.record({ type: fc.constant('input_text'), text }),
      fc.record(
        { type: fc.constant('input_image'), image_url: url, detail: fc.constantFrom('auto', 'low', 'high', 'x'), file_id: text },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        { type: fc.constant('input_file'), file_data: fc.oneof(dataUrl, base64), filename: text, file_id: text, file_url: url },
        { requiredKeys: ['type'] },
      ),
      junk,
    )
    const parts = fc.array(inputPart, { maxLength: 4 })
    return fc.oneof(
      parts.map((content) => [{ type: 'message', role: 'user', content }]),
      fc.oneof(parts, text).map((output) => [
        { type: 'message', role: 'user', content: 'Look' },
        { type: 'function_call', call_id: 'c1', name: 'view_image', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output },
      ]),
    )
  })()

  it('Responses: input_image, input_file and function_call_output arrays', async () => {
    const tools = [{ type: 'function', name: 'view_image', parameters: { type: 'object', properties: {} } }]
    await fc.assert(
      fc.asyncProperty(responsesInput, async (sent) => {
        const id = newSessionId('fuzz-responses-parts')
        await expectHarmless(id, '/v1/responses', resolved({ model: 'echo', input: sent, tools }), expectOpenAIError, {
          'X-Session-Id': id,
        })
      }),
      RUNS,
    )
  })

  it('Conversations: the same items added to a conversation (its session: a 4xx leaves its version and blobs as they were)', async () => {
    const created = await call('POST', '/v1/conversations', { body: {} })
    expect(created.status, created.text).toBe(200)
    const id = created.body.id as string
    await fc.assert(
      fc.asyncProperty(responsesInput, async (sent) => {
        await expectHarmless(id, `/v1/conversations/${id}/items`, resolved({ items: sent }), expectOpenAIError)
      }),
      RUNS,
    )
  })
})

describe('at most 100 images and documents a message, on every door', () => {
  it('a message of up to 100 is taken; of more, a 413 naming the message, nothing written', async () => {
    const data = encodeBase64(png(1, 1))
    const url = `data:image/png;base64,${data}`
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data } }
    const toolUse = { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] }
    const call1 = { type: 'function_call', call_id: 'c1', name: 'view', arguments: '{}' }
    const anthropic = { 'anthropic-version': '2023-06-01' }
    /** Each door: its path, headers and a body of `n` images in one message, and the field its 413 names. */
    const doors: Record<string, (n: number) => [string, Record<string, string>, unknown, string]> = {
      native: (n) => [
        'events',
        {},
        {
          events: [
            {
              message: {
                role: 'user',
                content: Array.from({ length: n }, () => ({ type: 'image', mediaType: 'image/png', data })),
              },
            },
          ],
        },
        'events[0].message',
      ],
      chat: (n) => [
        '/v1/chat/completions',
        {},
        {
          model: 'echo',
          messages: [{ role: 'user', content: Array.from({ length: n }, () => ({ type: 'image_url', image_url: { url } })) }],
        },
        'messages[0]',
      ],
      messages: (n) => [
        '/v1/messages',
        anthropic,
        {
          model: 'echo',
          max_tokens: 10,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, ...Array(n).fill(image)] }],
        },
        'messages[0].content',
      ],
      toolResult: (n) => [
        '/v1/messages',
        anthropic,
        {
          model: 'echo',
          max_tokens: 10,
          messages: [
            { role: 'user', content: 'x' },
            toolUse,
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: Array(n).fill(image) }] },
          ],
        },
        'messages[2].content[0].content',
      ],
      responses: (n) => [
        '/v1/responses',
        {},
        {
          model: 'echo',
          input: [{ type: 'message', role: 'user', content: Array(n).fill({ type: 'input_image', image_url: url }) }],
        },
        'input[0].content',
      ],
      functionCallOutput: (n) => [
        '/v1/responses',
        {},
        {
          model: 'echo',
          input: [
            { type: 'message', role: 'user', content: 'x' },
            call1,
            { type: 'function_call_output', call_id: 'c1', output: Array(n).fill({ type: 'input_image', image_url: url }) },
          ],
        },
        'input[2].output',
      ],
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(doors)), fc.integer({ min: 97, max: 103 }), async (door, n) => {
        const id = newSessionId('fuzz-parts-many')
        const [path, headers, body, field] = doors[door]!(n)
        const route = path === 'events' ? `/v1/sessions/${id}/events` : path
        // Each door's error shape is checked above; here, the limit and that a refusal wrote nothing.
        const result = await expectHarmless(id, route, JSON.stringify(body), () => {}, { ...headers, 'X-Session-Id': id })
        if (n <= 100) expect(result.status, result.text).toBeLessThan(300)
        else {
          expect(result.status, result.text).toBe(413)
          expect(result.text).toContain(`${field}: ${n} images and documents; a message may hold 100`)
        }
      }),
      { numRuns: 30, seed: 100 },
    )
  })
})

/** GET of a blob of alice's session. */
async function blobAt(id: string, blob: string) {
  return exports.default.fetch(
    new Request(`https://sessions.test/v1/sessions/${id}/blobs/${blob}`, {
      headers: { Authorization: `Bearer ${await tokenFor('alice')}` },
    }),
  )
}
