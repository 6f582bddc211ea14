import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { jpeg, pdf, png } from '../../src/core/media/fixtures'
import { sha256Hex } from '../../src/core/media/sha256'
import { sessionStub } from '../../src/object/address'
import {
  append as appendEvents,
  call,
  expectError,
  newSessionId,
  newTag,
  tokenFor,
  turn,
  upstreamRequests,
  wholeLog,
} from '../helpers'
import { blobRows } from '../support/blob-rows'

/** An append's answer, its events whole. */
const append = async (id: string, events: unknown[]) => (await appendEvents(id, events)) as { version: number; events: any[] }

const PNG = png(4, 3)
const PNG_BASE64 = encodeBase64(PNG)
const blobOf = async (bytes: Uint8Array) => `sha256:${await sha256Hex(bytes)}`

/** An image part as the native API takes it. */
const image = (bytes = PNG, mediaType = 'image/png') => ({ type: 'image', mediaType, data: encodeBase64(bytes) })
const userWith = (...content: unknown[]) => ({ message: { role: 'user', content } })

describe('images and documents on the native API', () => {
  it('stores an image once by its SHA-256 and shows it by reference, with what was read of it', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    const first = await append(id, [userWith({ type: 'text', text: 'Look:' }, image())])
    expect(first.events[0].message.content).toEqual([
      { type: 'text', text: 'Look:' },
      { type: 'image', mediaType: 'image/png', blob, bytes: PNG.byteLength, width: 4, height: 3 },
    ])
    // The same bytes again, in another event and as a data URL: the same part, stored once.
    await append(id, [userWith({ type: 'image', url: `data:image/png;base64,${PNG_BASE64}` })])
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
    const log = await wholeLog(id)
    expect(log[1].message.content).toEqual([
      { type: 'image', mediaType: 'image/png', blob, bytes: PNG.byteLength, width: 4, height: 3 },
    ])
    expect(JSON.stringify(log)).not.toContain(PNG_BASE64)
  })

  it('answers the bytes at the blob route with their type, an ETag and immutable caching; 304 when the client holds them', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith(image())])
    const read = await fetchBlob(id, blob)
    expect(read.status).toBe(200)
    expect(read.headers.get('Content-Type')).toBe('image/png')
    expect(read.headers.get('ETag')).toBe(`"${blob.slice(7)}"`)
    expect(read.headers.get('Cache-Control')).toBe('private, max-age=31536000, immutable')
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(PNG)
    const again = await fetchBlob(id, blob, { 'If-None-Match': `"${blob.slice(7)}"` })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  it('reads a blob the session does not hold, another user’s included, exactly as absent: 404', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith(image())])
    const other = await blobOf(jpeg(2, 2))
    expect((await fetchBlob(id, other)).status).toBe(404)
    const bob = await fetchBlob(id, blob, {}, 'bob')
    expect(bob.status).toBe(404)
    expect(await bob.json()).toEqual({ error: { code: 'not_found', message: 'session not found' } })
  })

  it('names a stored blob by reference in a later message, filled in from what the session holds', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith(image())])
    const again = await append(id, [userWith({ type: 'image', blob, detail: 'low' })])
    expect(again.events[0].message.content).toEqual([
      { type: 'image', mediaType: 'image/png', blob, bytes: PNG.byteLength, width: 4, height: 3, detail: 'low' },
    ])
    // A reference the session does not hold: a 400 naming the part, nothing written.
    const missing = await blobOf(jpeg(5, 5))
    const refused = await call('POST', `/v1/sessions/${id}/events`, {
      body: { events: [userWith({ type: 'image', blob: missing })] },
    })
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toBe(`events[0].message.content[0].blob: "${missing}" is no blob of this session`)
    expect(await wholeLog(id)).toHaveLength(2)
  })

  it('refuses broken base64, a type its bytes are not, an unsupported type and a part over 20 MiB, naming the part; nothing written', async () => {
    const id = newSessionId('media')
    await append(id, [{ message: { role: 'user', content: 'first' } }])
    const post = (part: unknown) =>
      call('POST', `/v1/sessions/${id}/events`, { body: { events: [userWith({ type: 'text', text: 'x' }, part)] } })
    const broken = await post({ type: 'image', mediaType: 'image/png', data: 'iVBOR!!w0KGgo=' })
    expectError(broken, 400, 'invalid_request')
    expect(broken.body.error.message).toMatch(/^events\[0\]\.message\.content\[1\]\.data: not base64: /)
    const lying = await post(image(jpeg(2, 2), 'image/png'))
    expectError(lying, 400, 'invalid_request')
    expect(lying.body.error.message).toBe('events[0].message.content[1].data: declared image/png but the bytes are a JPEG image')
    const bmp = await post(image(PNG, 'image/bmp'))
    expectError(bmp, 400, 'invalid_request')
    expect(bmp.body.error.message).toMatch(/^events\[0\]\.message\.content\[1\]\.data: .*image\/bmp/)
    const huge = new Uint8Array(20 * 1024 * 1024 + 1)
    huge.set(PNG)
    const tooLarge = await post(image(huge))
    expectError(tooLarge, 413, 'payload_too_large')
    expect(tooLarge.body.error.message).toBe(
      `events[0].message.content[1].data: ${huge.byteLength} bytes; an image or document may hold 20 MiB`,
    )
    expect(await wholeLog(id)).toHaveLength(1)
    expect(await blobRows(id)).toEqual({ blobs: 0, chunks: 0 })
  })

  it('reads a PDF’s pages and a text/plain document, and searches a document by its title', async () => {
    const id = newSessionId('media')
    const doc = pdf(3)
    const written = await append(id, [
      userWith({ type: 'document', mediaType: 'application/pdf', title: 'Quarterly plan', data: encodeBase64(doc) }),
    ])
    expect(written.events[0].message.content[0]).toMatchObject({
      type: 'document',
      mediaType: 'application/pdf',
      pages: 3,
      title: 'Quarterly plan',
    })
    const found = await call('GET', `/v1/sessions/${id}/search?q=quarterly`)
    expect(found.body.hits.map((hit: any) => hit.event.id)).toEqual([written.events[0].id])
    // A text/plain document is found by its text, which no event holds.
    const notes = new TextEncoder().encode('Minutes: the walrus budget was approved.\n')
    const plain = await append(id, [userWith({ type: 'document', mediaType: 'text/plain', data: encodeBase64(notes) })])
    expect(plain.events[0].message.content[0]).toEqual({
      type: 'document',
      mediaType: 'text/plain',
      blob: await blobOf(notes),
      bytes: notes.byteLength,
    })
    const walrus = await call('GET', `/v1/sessions/${id}/search?q=walrus`)
    expect(walrus.body.hits.map((hit: any) => hit.event.id)).toEqual([plain.events[0].id])
  })

  it('copies into a fork the blobs its view names, and no others, however large', async () => {
    const id = newSessionId('media')
    // A document over two chunks (1 MiB each), then an image.
    const long = new TextEncoder().encode('the quick brown fox jumps over the lazy dog\n'.repeat(60_000))
    const first = await append(id, [
      userWith({ type: 'document', mediaType: 'text/plain', title: 'Fox', data: encodeBase64(long) }),
    ])
    await append(id, [userWith(image())])
    expect(await blobRows(id)).toEqual({ blobs: 2, chunks: 4 })
    const asOfFirst = await call('POST', `/v1/sessions/${id}/fork`, { body: { at: first.events[0].id } })
    expect(asOfFirst.status, asOfFirst.text).toBe(201)
    const fork = asOfFirst.body.id
    expect(await blobRows(fork)).toEqual({ blobs: 1, chunks: 3 })
    const copied = await fetchBlob(fork, await blobOf(long))
    expect(copied.status).toBe(200)
    expect(new Uint8Array(await copied.arrayBuffer())).toEqual(long)
    expect((await fetchBlob(fork, await blobOf(PNG))).status).toBe(404)
    // The whole view: both, and the fork's log names them as the source's does.
    const whole = await call('POST', `/v1/sessions/${id}/fork`, { body: {} })
    expect(await blobRows(whole.body.id)).toEqual({ blobs: 2, chunks: 4 })
    expect((await wholeLog(whole.body.id)).map((event) => event.message.content)).toEqual(
      (await wholeLog(id)).map((event) => event.message.content),
    )
    const png = await fetchBlob(whole.body.id, await blobOf(PNG))
    expect(new Uint8Array(await png.arrayBuffer())).toEqual(PNG)
  })

  it('erases the bytes with the session', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith(image())])
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    expect((await fetchBlob(id, blob)).status).toBe(404)
    const left = await runInDurableObject(sessionStub(env, 'alice', id), (_instance, state) =>
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'blob%'")
        .toArray(),
    )
    expect(left).toEqual([])
  })
})

describe('images on their way to the model', () => {
  it('sends a turn’s image as a data URL in an image_url part, the same bytes on every later turn', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    const first = await turn(id, { model: `echo#${tag}`, content: [{ type: 'text', text: 'What is this?' }, image()] })
    expect(first.status).toBe(200)
    expect(first.body.reply.message.content).toBe('Echo: What is this? [image]')
    await turn(id, { model: `echo#${tag}`, content: 'And now?' })
    const sent = await upstreamRequests(tag)
    const dataUrl = `data:image/png;base64,${PNG_BASE64}`
    for (const request of sent) {
      const user = request.body.messages.find((m) => m.role === 'user') as unknown as { content: unknown }
      expect(user.content).toEqual([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: dataUrl } },
      ])
    }
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
  })

  it('sends an image of over 64 Ki characters of base64 to either upstream intact, the request with its length (not chunked)', async () => {
    const large = png(120, 150)
    const data = encodeBase64(large)
    expect(data.length).toBeGreaterThan(64 * 1024)
    const id = newSessionId('media')
    const tag = newTag()
    const asked = await turn(id, { model: `echo#${tag}`, content: [{ type: 'text', text: 'And this?' }, image(large)] })
    expect(asked.status, asked.text).toBe(200)
    const [openai] = await upstreamRequests(tag)
    const user = openai!.body.messages.find((m) => m.role === 'user') as unknown as { content: unknown }
    expect(user.content).toEqual([
      { type: 'text', text: 'And this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
    ])
    const claude = await turn(id, { model: `claude-echo#${tag}`, content: 'Once more?' })
    expect(claude.status, claude.text).toBe(200)
    const [anthropic] = (await (await fetch(`${env.ANTHROPIC_BASE_URL}/__requests?tag=${tag}`)).json()) as {
      framing: { contentLength?: string; transferEncoding?: string }
      body: { messages: { content: unknown }[] }
    }[]
    expect(anthropic!.body.messages[0]!.content).toContainEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data },
    })
    // Sent with its length, not chunked: the body's bytes as JSON.stringify would have written them.
    expect(anthropic!.framing.transferEncoding).toBeUndefined()
    expect(Number(anthropic!.framing.contentLength)).toBe(new TextEncoder().encode(JSON.stringify(anthropic!.body)).byteLength)
  })

  it('follows a redirect that keeps the method with a large image as a small request does, sending its body again', async () => {
    const large = png(120, 150)
    for (const status of [307, 308]) {
      const id = newSessionId('media')
      const tag = newTag()
      const asked = await turn(id, { model: `moved-${status}#${tag}`, content: [{ type: 'text', text: 'Moved?' }, image(large)] })
      expect(asked.status, asked.text).toBe(200)
      expect(asked.body.reply.message.content).toBe('Echo: Moved? [image]')
      // Both arrivals carried the whole request: the redirected one and the one answered.
      const sent = await upstreamRequests(tag)
      expect(sent).toHaveLength(2)
      expect(sent[1]!.body).toEqual(sent[0]!.body)
    }
  })

  it('sends a tool result’s images after the tool messages, as one user message naming the call', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    await append(id, [
      { message: { role: 'user', content: 'Take a screenshot' } },
      { message: { role: 'assistant', content: null, toolCalls: [{ id: 'shot_1', name: 'screenshot', arguments: '{}' }] } },
    ])
    const answered = await turn(id, {
      model: `echo#${tag}`,
      toolResults: [{ id: 'shot_1', data: [{ type: 'text', text: 'done' }, image()] }],
    })
    expect(answered.status).toBe(200)
    const [request] = await upstreamRequests(tag)
    const messages = request!.body.messages as unknown as { role: string; content: unknown }[]
    expect(messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'shot_1', content: 'done' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '[images returned by tool call shot_1]' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
        ],
      },
    ])
  })

  it('sends placeholders instead of bytes when the turn asks (a model without vision)', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    const blob = await blobOf(PNG)
    await turn(id, { model: `echo#${tag}`, images: 'placeholder', content: [{ type: 'text', text: 'Hi' }, image()] })
    const [request] = await upstreamRequests(tag)
    const user = request!.body.messages.find((m) => m.role === 'user') as unknown as { content: unknown }
    expect(user.content).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'text', text: `[image: image/png, 4×3, ${PNG.byteLength} B, ${blob.slice(0, 15)}]` },
    ])
  })
})

describe('images through the doors', () => {
  it('chat completions: a resent image_url is the part stored before, stored once; the upstream gets it every time', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    const dataUrl = `data:image/png;base64,${PNG_BASE64}`
    const question = {
      role: 'user',
      content: [
        { type: 'text', text: 'What?' },
        { type: 'image_url', image_url: { url: dataUrl } },
      ],
    }
    const chat = (messages: unknown[]) =>
      call('POST', '/v1/chat/completions', { body: { model: `echo#${tag}`, messages }, headers: { 'X-Session-Id': id } })
    const first = await chat([question])
    expect(first.status).toBe(200)
    const second = await chat([question, first.body.choices[0].message, { role: 'user', content: 'More?' }])
    expect(second.status).toBe(200)
    expect((await wholeLog(id)).map((event) => event.message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
    const sent = await upstreamRequests(tag)
    expect(sent).toHaveLength(2)
    for (const request of sent) expect(JSON.stringify(request.body.messages[0])).toContain(dataUrl)
  })

  it('Messages: an image inside a tool_result (Claude Code’s Read) is stored once however often the history is resent', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    const block = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }
    const history = [
      { role: 'user', content: 'Read the screenshot' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.png' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [block] }] },
    ]
    const send = (messages: unknown[]) =>
      call('POST', '/v1/messages', {
        body: { model: `echo#${tag}`, max_tokens: 100, messages },
        headers: { 'X-Session-Id': id, 'anthropic-version': '2023-06-01' },
      })
    const first = await send(history)
    expect(first.status).toBe(200)
    const reply = { role: 'assistant', content: first.body.content }
    const second = await send([...history, reply, { role: 'user', content: 'What does it show?' }])
    expect(second.status).toBe(200)
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
    const tool = (await wholeLog(id)).find((event) => event.message?.role === 'tool')
    expect(tool.message.toolResponses[0].data).toEqual([
      { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 4, height: 3 },
    ])
  })

  it('Responses: input_image and a function_call_output holding one, and the items shown by their blob URL', async () => {
    const id = newSessionId('media')
    const tag = newTag()
    const dataUrl = `data:image/png;base64,${PNG_BASE64}`
    const input = [
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'See' },
          { type: 'input_image', image_url: dataUrl },
        ],
      },
    ]
    const answered = await call('POST', '/v1/responses', {
      body: { model: `echo#${tag}`, input },
      headers: { 'X-Session-Id': id },
    })
    expect(answered.status, answered.text).toBe(200)
    expect(answered.body.output[0].content[0].text).toBe('Echo: See [image]')
    // Codex's view_image: the image comes back inside the function_call_output, resent every request.
    const tools = [{ type: 'function', name: 'view_image', parameters: { type: 'object', properties: {} } }]
    const history = [...input, ...answered.body.output, { type: 'message', role: 'user', content: 'Look closer' }]
    const called = await call('POST', '/v1/responses', {
      body: { model: `tools-c1#${tag}`, input: history, tools },
      headers: { 'X-Session-Id': id },
    })
    expect(called.status, called.text).toBe(200)
    const output = { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_image', image_url: dataUrl }] }
    const looked = await call('POST', '/v1/responses', {
      body: { model: `echo#${tag}`, input: [...history, ...called.body.output, output], tools },
      headers: { 'X-Session-Id': id },
    })
    expect(looked.status, looked.text).toBe(200)
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
    const blob = await blobOf(PNG)
    const tool = (await wholeLog(id)).find((event) => event.message?.role === 'tool')
    expect(tool.message.toolResponses[0].data).toEqual([
      { type: 'image', mediaType: 'image/png', blob, bytes: PNG.byteLength, width: 4, height: 3 },
    ])
    // The model was given the image after the tool's result: an OpenAI tool message holds text only.
    const sent = (await upstreamRequests(tag)).at(-1)!.body.messages
    expect(sent.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'c1' })
    expect(sent.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[images returned by tool call c1]' },
        { type: 'image_url', image_url: { url: dataUrl } },
      ],
    })
    // The items show the stored image by its blob URL, which the session answers.
    const items = await call('GET', `/v1/responses/${looked.body.id}/input_items?order=asc&limit=100`)
    expect(items.status, items.text).toBe(200)
    const shown = items.body.data.find((item: any) => item.type === 'function_call_output')
    const url = `https://sessions.test/v1/sessions/${id}/blobs/${blob}`
    expect(shown.output).toEqual([{ type: 'input_image', image_url: url, detail: 'auto' }])
    expect((await fetchBlob(id, blob)).status).toBe(200)
    const unsupported = await call('POST', '/v1/responses', {
      body: {
        model: `echo#${tag}`,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }],
      },
      headers: { 'X-Session-Id': newSessionId('media') },
    })
    expect(unsupported.status).toBe(400)
    expect(unsupported.body.error.code).toBe('unsupported')
  })
})

describe('an image named by the blob URL of another of the caller’s sessions', () => {
  /** A session holding the PNG, and the URL its items show it by. */
  async function holding(user = 'alice') {
    const id = newSessionId('media')
    await call('POST', `/v1/sessions/${id}/events`, { user, body: { events: [userWith(image())] } })
    return `https://sessions.test/v1/sessions/${id}/blobs/${await blobOf(PNG)}`
  }
  const input = (url: string) => [
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'See' },
        { type: 'input_image', image_url: url },
      ],
    },
  ]

  it('Responses: read from that session (a conversation’s item sent to /v1/responses, as the Agents SDK does): stored, the model given it', async () => {
    const url = await holding()
    const id = newSessionId('media')
    const tag = newTag()
    const twice = [...input(url), ...input(url)]
    const answered = await call('POST', '/v1/responses', {
      body: { model: `echo#${tag}`, input: twice },
      headers: { 'X-Session-Id': id },
    })
    expect(answered.status, answered.text).toBe(200)
    expect(await blobRows(id)).toEqual({ blobs: 1, chunks: 1 })
    expect((await wholeLog(id))[0].message.content[1]).toEqual({
      type: 'image',
      mediaType: 'image/png',
      blob: await blobOf(PNG),
      bytes: PNG.byteLength,
      width: 4,
      height: 3,
    })
    const [request] = await upstreamRequests(tag)
    expect(JSON.stringify(request!.body.messages[0])).toContain(`data:image/png;base64,${PNG_BASE64}`)
    // Unstored (store: false, no session): passed through with its bytes.
    const unstored = await call('POST', '/v1/responses', { body: { model: `echo#${tag}`, input: input(url), store: false } })
    expect(unstored.status, unstored.text).toBe(200)
    expect((await upstreamRequests(tag)).at(-1)!.body.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'See' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
      ],
    })
  })

  it('Conversations: an item holding one is stored with its bytes in the conversation it is added to', async () => {
    const url = await holding()
    const created = await call('POST', '/v1/conversations', { body: { items: input(url) } })
    expect(created.status, created.text).toBe(200)
    expect(await blobRows(created.body.id)).toEqual({ blobs: 1, chunks: 1 })
    const added = await call('POST', `/v1/conversations/${created.body.id}/items`, { body: { items: input(url) } })
    expect(added.status, added.text).toBe(200)
    expect(added.body.data[0].content[1].image_url).toBe(
      `https://sessions.test/v1/sessions/${created.body.id}/blobs/${await blobOf(PNG)}`,
    )
    expect(await blobRows(created.body.id)).toEqual({ blobs: 1, chunks: 1 })
  })

  it('another user’s session, or a blob that session does not hold: a 400 naming the field, nothing written', async () => {
    const bobs = await holding('bob')
    const id = newSessionId('media')
    const refused = await call('POST', '/v1/responses', {
      body: { model: 'echo', input: input(bobs) },
      headers: { 'X-Session-Id': id },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({
      code: 'invalid_request',
      message: `input[0].content[1].image_url: "${await blobOf(PNG)}" is no blob of this session`,
    })
    const missing = bobs
      .replace(/sha256:[0-9a-f]{64}$/, await blobOf(jpeg(2, 2)))
      .replace(/sessions\/[^/]+/, `sessions/${newSessionId('media')}`)
    const absent = await call('POST', '/v1/responses', {
      body: { model: 'echo', input: input(missing) },
      headers: { 'X-Session-Id': id },
    })
    expect(absent.status).toBe(400)
    expect(absent.body.error).toMatchObject({ code: 'invalid_request', param: 'input[0].content[1].image_url' })
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })
})

describe('images in exports and imports', () => {
  it('a jsonl export carries each blob’s bytes once, in the first event naming it; an import restores them', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith(image()), userWith(image())])
    const exported = await call('GET', `/v1/sessions/${id}/export?format=jsonl`)
    expect(exported.status).toBe(200)
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[1].message.content[0]).toMatchObject({ blob, data: PNG_BASE64 })
    expect(lines[2].message.content[0]).not.toHaveProperty('data')
    const copy = newSessionId('media')
    const imported = await call('POST', `/v1/sessions/${copy}/import`, {
      body: exported.text,
      headers: { 'Content-Type': 'application/x-ndjson' },
    })
    expect(imported.status).toBe(200)
    expect(imported.body).toMatchObject({ imported: 2 })
    expect(new Uint8Array(await (await fetchBlob(copy, blob)).arrayBuffer())).toEqual(PNG)
    expect(await blobRows(copy)).toEqual({ blobs: 1, chunks: 1 })
  })

  it('an import whose bytes are not the blob they name is refused, naming the line, nothing written', async () => {
    const copy = newSessionId('media')
    const lie = `sha256:${'0'.repeat(64)}`
    const line = {
      type: 'MESSAGE',
      id: 'e1',
      seq: 1,
      timestamp: '2026-12-07T00:00:00.000Z',
      synthetic: false,
      tokens: 10,
      metadata: {},
      pinned: false,
      message: {
        role: 'user',
        content: [{ type: 'image', mediaType: 'image/png', blob: lie, bytes: PNG.byteLength, data: PNG_BASE64 }],
      },
    }
    const refused = await call('POST', `/v1/sessions/${copy}/import`, {
      body: JSON.stringify(line),
      headers: { 'Content-Type': 'application/x-ndjson' },
    })
    expectError(refused, 400, 'invalid_request')
    expect(refused.body.error.message).toMatch(
      /^line 1: message\.content\[0\]\.data: its SHA-256 is sha256:[0-9a-f]{64}, not the part's blob/,
    )
    expect((await call('GET', `/v1/sessions/${copy}`)).status).toBe(404)
  })

  it('a Markdown export shows each image as its placeholder', async () => {
    const id = newSessionId('media')
    const blob = await blobOf(PNG)
    await append(id, [userWith({ type: 'text', text: 'Look' }, image())])
    const markdown = await call('GET', `/v1/sessions/${id}/export?format=markdown`)
    expect(markdown.text).toContain(`Look\n[image: image/png, 4×3, ${PNG.byteLength} B, ${blob.slice(0, 15)}]`)
  })
})

/** GET of a blob as `user`, its response whole. */
async function fetchBlob(id: string, blob: string, headers: Record<string, string> = {}, user = 'alice') {
  return exports.default.fetch(
    new Request(`https://sessions.test/v1/sessions/${id}/blobs/${blob}`, {
      headers: { Authorization: `Bearer ${await tokenFor(user)}`, ...headers },
    }),
  )
}
