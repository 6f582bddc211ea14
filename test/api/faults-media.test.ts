import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { UploadReader } from '../../src/contract/blob-upload'
import { encodeBase64 } from '../../src/core/media/base64'
import { png } from '../../src/core/media/fixtures'
import { sha256Hex } from '../../src/core/media/sha256'
import { sessionStub } from '../../src/object/address'
import {
  append,
  call,
  expectBlobsErased,
  expectEveryLogWhole,
  expectWholeLog,
  heldBlobs,
  newSessionId,
  newTag,
  releaseUpstream,
  turn,
  untilUpstreamReceived,
  user,
} from '../helpers'
import { send, u } from '../support/messages-door'

// Every session these tests made: its log replays to its view, and it holds exactly the blobs its events name.
afterEach(expectEveryLogWhole)

const PNG = png(6, 4)
const blobOf = async (bytes: Uint8Array) => `sha256:${await sha256Hex(bytes)}`
const image = (bytes = PNG) => ({ type: 'image', mediaType: 'image/png', data: encodeBase64(bytes) })
/** A text/plain document of over two 1 MiB chunks: its copy into a fork takes several reads. */
const LONG = new TextEncoder().encode('the quick brown fox jumps over the lazy dog\n'.repeat(60_000))
const longDocument = () => ({ type: 'document', mediaType: 'text/plain', title: 'Fox', data: encodeBase64(LONG) })

/**
 * Fails every read of an upload's bytes after the first `passing` ones (in any object of this
 * isolate), as a connection lost mid-copy would: `failed` counts them. Undone by `restore`.
 * (A read held forever while the objects are aborted crashes workerd itself: a failure stands in.)
 */
function failUploadReads(passing: number) {
  const take = UploadReader.prototype.take
  const state = {
    reads: 0,
    failed: 0,
    restore: () => {
      UploadReader.prototype.take = take
    },
  }
  UploadReader.prototype.take = function (this: UploadReader, length: number) {
    if (++state.reads <= passing) return take.call(this, length)
    state.failed++
    return Promise.reject(new Error('injected: the upload’s connection is lost'))
  }
  return state
}

describe('the object killed while a request with images is written', () => {
  it('a turn with an image, killed while its model call is unanswered: no event, no blob; the retry stores it once', async () => {
    const id = newSessionId('media')
    await append(id, [user('before'), { message: { role: 'assistant', content: 'reply' } }])
    const tag = newTag()
    const content = [{ type: 'text', text: 'Look:' }, image()]
    const pending = turn(id, { id: 'turn-img', content, model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    expect((await expectWholeLog(id)).events).toHaveLength(2)
    expect(await heldBlobs(id)).toEqual([])
    const retried = await turn(id, { id: 'turn-img', content, compaction: false })
    expect(retried.status, retried.text).toBe(200)
    const { events } = await expectWholeLog(id)
    expect(events[2].message.content[1]).toMatchObject({ type: 'image', blob: await blobOf(PNG) })
    expect(await heldBlobs(id)).toEqual([await blobOf(PNG)])
  })

  it('a Messages request whose history holds an image in a tool_result, killed while its model call is unanswered: nothing stored; the client’s resend stores it once', async () => {
    const id = newSessionId('media')
    const source = { type: 'base64', media_type: 'image/png', data: encodeBase64(PNG) }
    const messages = [
      u('Take a screenshot.'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'shot_1', name: 'screenshot', input: {} }] },
      u([{ type: 'tool_result', tool_use_id: 'shot_1', content: [{ type: 'image', source }] }]),
    ]
    const tools = [{ name: 'screenshot', description: 'Takes a screenshot', input_schema: { type: 'object', properties: {} } }]
    const tag = newTag()
    const pending = send(id, { model: `hold#${tag}`, tools, messages })
    await untilUpstreamReceived(tag)
    await abortAllDurableObjects()
    expect((await pending).status).toBeGreaterThanOrEqual(500)
    await releaseUpstream(tag) // answered to no one
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
    expect(await heldBlobs(id)).toEqual([])
    const again = await send(id, { model: `echo#${newTag()}`, tools, messages })
    expect(again.status, again.text).toBe(200)
    const { events } = await expectWholeLog(id)
    expect(events.filter((e) => e.message?.role === 'tool')).toHaveLength(1)
    expect(await heldBlobs(id)).toEqual([await blobOf(PNG)])
  })

  /** A fork of a session holding the long document then the image, its copy failing after `passing` reads: the fork is absent. */
  async function failedFork(passing: number) {
    const id = newSessionId('media')
    await append(id, [{ message: { role: 'user', content: [longDocument(), image()] } }])
    const target = newSessionId('fork')
    const reads = failUploadReads(passing)
    try {
      const forked = await call('POST', `/v1/sessions/${id}/fork`, { body: { id: target } })
      expect(forked.status, forked.text).toBeGreaterThanOrEqual(500)
      expect(reads.failed).toBe(1)
    } finally {
      reads.restore()
    }
    expect((await call('GET', `/v1/sessions/${target}`)).status).toBe(404)
    expect((await call('GET', `/v1/sessions/${target}/blobs/${await blobOf(LONG)}`)).status).toBe(404)
    return { id, target }
  }

  it('a fork whose copy fails inside a blob: a session written afresh at its id, bringing that blob, stores it whole', async () => {
    // The copy takes the document's first chunk, then fails reading its second.
    const { id, target } = await failedFork(1)
    const written = await call('POST', `/v1/sessions/${target}/events`, {
      body: { events: [{ message: { role: 'user', content: [longDocument()] } }] },
    })
    expect(written.status, written.text).toBe(201)
    expect(await heldBlobs(target)).toEqual([await blobOf(LONG)])
    expect((await call('GET', `/v1/sessions/${target}/blobs/${await blobOf(LONG)}`)).text).toBe(new TextDecoder().decode(LONG))
    // A fork retried into a fresh id copies both whole.
    const again = await call('POST', `/v1/sessions/${id}/fork`, { body: { id: newSessionId('fork') } })
    expect(again.status, again.text).toBe(201)
    expect((await heldBlobs(again.body.id)).sort()).toEqual([await blobOf(LONG), await blobOf(PNG)].sort())
  })

  it('a fork whose copy fails after a whole blob: a session written afresh at its id holds none that its events do not name', async () => {
    // The copy takes the document's three chunks, then fails reading the image.
    const { target } = await failedFork(3)
    await append(target, [{ message: { role: 'user', content: [image()] } }])
    expect(await heldBlobs(target)).toEqual([await blobOf(PNG)])
    expect((await call('GET', `/v1/sessions/${target}/blobs/${await blobOf(LONG)}`)).status).toBe(404)
  })
})

describe('no blob outlives its erased session', () => {
  it('deleted while a turn bringing an image holds the model: the delete stands, and the turn leaves no event and no blob', async () => {
    const id = newSessionId('media')
    await append(id, [user('before')])
    const tag = newTag()
    const pending = turn(id, { content: [image()], model: `hold#${tag}`, compaction: false })
    await untilUpstreamReceived(tag)
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    await releaseUpstream(tag)
    expect((await pending).status).not.toBe(200)
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
    await expectBlobsErased(id, [await blobOf(PNG)])
  })

  it('expired: absent once its time has passed, its blobs wiped by the read that found it so', async () => {
    const id = newSessionId('media')
    expect((await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 60 } })).status).toBe(201)
    await append(id, [{ message: { role: 'user', content: [image()] } }])
    expect(await heldBlobs(id)).toEqual([await blobOf(PNG)])
    // The code's clock past the expiry (workerd's own alarm is not waited for).
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 61_000)
      expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
      await expectBlobsErased(id, [await blobOf(PNG)])
    } finally {
      vi.useRealTimers()
    }
  })

  it('erased with all of its user’s: absent at once, its blobs gone once its alarm has wiped it', async () => {
    const as = `eraser-${newTag()}`
    const id = newSessionId('media')
    await append(id, [{ message: { role: 'user', content: [image()] } }], as)
    const erased = await call('DELETE', '/v1/sessions', { user: as, body: { all: true } })
    expect(erased.body).toEqual({ erased: 1 })
    expect((await call('GET', `/v1/sessions/${id}/blobs/${await blobOf(PNG)}`, { user: as })).status).toBe(404)
    await runDurableObjectAlarm(sessionStub(env, as, id))
    await expectBlobsErased(id, [await blobOf(PNG)], as)
  })
})
