import { describe, expect, it } from 'vitest'
import type { StagedBlob } from '../core/media/blob'
import { INLINE_UPLOAD_BYTES, readUpload, UploadReader, uploadOf, uploadStream } from './blob-upload'

/** A staged blob of `length` bytes counting up from `seed`. */
function blob(name: string, length: number, seed = 0): StagedBlob {
  const data = new Uint8Array(length)
  for (let i = 0; i < length; i++) data[i] = (seed + i) & 0xff
  return { ref: `sha256:${name}`, mediaType: 'image/png', bytes: length, data }
}

/** Whether two byte arrays are equal (a deep equality of megabytes takes the test runner minutes). */
const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i])

describe('uploadOf and readUpload', () => {
  it('carries a small upload’s bytes as values, each blob its own buffer, and reads them back by name', async () => {
    const big = new Uint8Array(100).fill(7)
    const staged = [blob('a', 10), { ...blob('b', 20, 3), data: big.subarray(40, 60) }]
    const upload = uploadOf(staged, [{ ref: 'sha256:c', field: 'content[2].blob' }])!
    expect(Array.isArray(upload.bytes)).toBe(true)
    const pieces = upload.bytes as Uint8Array[]
    // A view of part of a buffer would cross RPC with the whole buffer: it goes as a copy of its part.
    expect(pieces.map((piece) => piece.buffer.byteLength)).toEqual([10, 20])
    expect(upload.blobs).toEqual([
      { ref: 'sha256:a', mediaType: 'image/png', bytes: 10 },
      { ref: 'sha256:b', mediaType: 'image/png', bytes: 20 },
    ])
    expect(upload.refs).toEqual([{ ref: 'sha256:c', field: 'content[2].blob' }])
    const read = await readUpload(upload)
    expect([...read.keys()]).toEqual(['sha256:a', 'sha256:b'])
    expect(read.get('sha256:a')!.data).toEqual(staged[0]!.data)
    expect(read.get('sha256:b')!.data).toEqual(new Uint8Array(20).fill(7))
  })

  it('streams an upload larger than the values may carry, read back the same', async () => {
    const staged = [blob('a', INLINE_UPLOAD_BYTES / 2 + 1, 1), blob('b', INLINE_UPLOAD_BYTES / 2, 2)]
    const upload = uploadOf(staged)!
    expect(upload.bytes).toBeInstanceOf(ReadableStream)
    const read = await readUpload(upload)
    expect(same(read.get('sha256:a')!.data, staged[0]!.data)).toBe(true)
    expect(same(read.get('sha256:b')!.data, staged[1]!.data)).toBe(true)
  })

  it('refuses values that are not the blobs they name', async () => {
    const upload = uploadOf([blob('a', 10)])!
    await expect(readUpload({ ...upload, bytes: [new Uint8Array(9)] })).rejects.toThrow('not its blobs')
    await expect(readUpload({ ...upload, bytes: [] })).rejects.toThrow('not its blobs')
  })

  it('has no bytes when the request only names blobs, and is null when it brings and names none', async () => {
    expect(uploadOf([], [{ ref: 'sha256:c', field: 'content[0].blob' }])).toEqual({
      blobs: [],
      refs: [{ ref: 'sha256:c', field: 'content[0].blob' }],
      bytes: null,
    })
    expect(uploadOf([])).toBeNull()
    expect((await readUpload(null)).size).toBe(0)
  })

  it('reads either form as one stream (a fork’s copy takes it a chunk at a time)', async () => {
    const staged = [blob('a', 5), blob('b', 7, 9)]
    const reader = new UploadReader(uploadStream(uploadOf(staged)!.bytes!))
    expect(await reader.take(5)).toEqual(staged[0]!.data)
    expect(await reader.take(7)).toEqual(staged[1]!.data)
  })
})
