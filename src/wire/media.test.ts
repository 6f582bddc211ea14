import { describe, expect, it } from 'vitest'
import { ServiceError } from '../contract/errors'
import { png } from '../core/media/fixtures'
import { sha256Hex } from '../core/media/sha256'
import { blobOfUrl } from './blob-url'
import { type BlobsElsewhere, MediaIntake } from './media'

const ORIGIN = 'https://svc.example'
const PNG = png(4, 3)

/** Sessions of the caller's holding blobs, read as the routes read them; counts the reads. */
function sessions(held: Record<string, Record<string, Uint8Array>>, requestSession: string | null) {
  const reads: string[] = []
  const cancelled: string[] = []
  const elsewhere: BlobsElsewhere = {
    sessionId: requestSession,
    async read(sessionId, ref) {
      reads.push(`${sessionId}/${ref}`)
      const data = held[sessionId]?.[ref]
      if (!data) return null
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => {
          controller.enqueue(data)
          controller.close()
        },
        cancel: () => void cancelled.push(`${sessionId}/${ref}`),
      })
      return { mediaType: 'image/png', bytes: data.byteLength, body }
    },
  }
  return { elsewhere, reads, cancelled }
}

describe('blobOfUrl', () => {
  it('names the blob and the session of this service’s blob route, and nothing else', () => {
    const ref = `sha256:${'a'.repeat(64)}`
    expect(blobOfUrl(`${ORIGIN}/v1/sessions/conv_1/blobs/${ref}`, ORIGIN)).toEqual({ sessionId: 'conv_1', ref })
    expect(blobOfUrl(`${ORIGIN}/v1/sessions/a%3Ab/blobs/${ref}`, ORIGIN)).toEqual({ sessionId: 'a:b', ref })
    expect(blobOfUrl(`https://other.example/v1/sessions/conv_1/blobs/${ref}`, ORIGIN)).toBeNull()
    expect(blobOfUrl(`${ORIGIN}/v1/sessions/conv_1/x/blobs/${ref}`, ORIGIN)).toBeNull()
    expect(blobOfUrl(`${ORIGIN}/v1/sessions/%E0%A4%A/blobs/${ref}`, ORIGIN)).toBeNull()
  })
})

describe('MediaIntake: a part named by this service’s blob URL', () => {
  it('of the request’s own session: a reference the session must hold, nothing read', async () => {
    const ref = `sha256:${await sha256Hex(PNG)}`
    const { elsewhere, reads } = sessions({}, 's1')
    const media = new MediaIntake(ORIGIN, elsewhere)
    const part = await media.url('input[0]', 'image', `${ORIGIN}/v1/sessions/s1/blobs/${ref}`)
    expect(part).toMatchObject({ type: 'image', blob: ref })
    expect(media.refs).toEqual([{ ref, field: 'input[0]' }])
    expect(reads).toEqual([])
  })

  it('of another of the caller’s sessions: its bytes read once, however often named, and staged for the request’s session', async () => {
    const ref = `sha256:${await sha256Hex(PNG)}`
    const { elsewhere, reads } = sessions({ conv_1: { [ref]: PNG } }, 'implicit_1')
    const media = new MediaIntake(ORIGIN, elsewhere)
    const url = `${ORIGIN}/v1/sessions/conv_1/blobs/${ref}`
    const first = await media.url('input[0]', 'image', url, { detail: 'auto' })
    const second = await media.url('input[1]', 'image', url)
    const known = { type: 'image', blob: ref, mediaType: 'image/png', bytes: PNG.byteLength, width: 4, height: 3 }
    expect(first).toEqual({ ...known, detail: 'auto' })
    expect(second).toEqual(known)
    expect(reads).toEqual([`conv_1/${ref}`])
    expect(media.refs).toEqual([])
    expect([...media.staged.values()].map(({ ref, data }) => ({ ref, data }))).toEqual([{ ref, data: PNG }])
  })

  it('that session does not hold it (or is not the caller’s): a reference, which the request’s session must hold', async () => {
    const ref = `sha256:${'b'.repeat(64)}`
    const { elsewhere } = sessions({}, 'implicit_1')
    const media = new MediaIntake(ORIGIN, elsewhere)
    await media.url('input[0]', 'image', `${ORIGIN}/v1/sessions/conv_1/blobs/${ref}`)
    expect(media.refs).toEqual([{ ref, field: 'input[0]' }])
  })

  it('more bytes named elsewhere than a media request may carry: a 413 naming the part, the blob over it never read', async () => {
    const big = new Uint8Array(20 * 1024 * 1024)
    big.set(PNG)
    const [a, b] = [`sha256:${'c'.repeat(64)}`, `sha256:${'d'.repeat(64)}`]
    const { elsewhere, cancelled } = sessions({ conv_1: { [a]: big, [b]: big } }, 'implicit_1')
    const media = new MediaIntake(ORIGIN, elsewhere)
    // The fake names the bytes by any ref: what is checked here is the budget, not the hash.
    await media.url('input[0]', 'image', `${ORIGIN}/v1/sessions/conv_1/blobs/${a}`)
    const over = media.url('input[1]', 'image', `${ORIGIN}/v1/sessions/conv_1/blobs/${b}`)
    await expect(over).rejects.toBeInstanceOf(ServiceError)
    await expect(over).rejects.toMatchObject({ code: 'payload_too_large', message: expect.stringMatching(/^input\[1\]: /) })
    expect(cancelled).toEqual([`conv_1/${b}`])
  })
})
