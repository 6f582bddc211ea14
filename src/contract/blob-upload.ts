import type { BlobInfo, StagedBlob } from '../core/media/blob'

/**
 * The images and documents a request brought, on their way from the Worker (which read, checked
 * and hashed them) to the session object (which stores each once, with the first event that names
 * it): their names and what was read of them, and their bytes as one stream in that order — a
 * stream, because an RPC value may not exceed 32 MiB and a request's parts may come near.
 */
export interface BlobUpload {
  blobs: (BlobInfo & { ref: string })[]
  /** Blobs the request names that it does not bring (a client's `blob` source), each with the field naming it. */
  refs: { ref: string; field: string }[]
  bytes: ReadableStream<Uint8Array> | null
}

/**
 * An upload of staged blobs and the references a request makes; null when it has neither.
 *
 * @example
 * const upload = uploadOf([...intake.staged], intake.refs)
 */
export function uploadOf(staged: readonly StagedBlob[], refs: readonly { ref: string; field: string }[] = []): BlobUpload | null {
  if (staged.length === 0 && refs.length === 0) return null
  let next = 0
  const bytes =
    staged.length === 0
      ? null
      : new ReadableStream<Uint8Array>({
          pull(controller) {
            const blob = staged[next++]
            if (blob) controller.enqueue(blob.data)
            if (next >= staged.length) controller.close()
          },
        })
  return { blobs: staged.map(({ data: _, ...info }) => info), refs: [...refs], bytes }
}

/**
 * Reads an upload's stream in pieces of the lengths asked for, holding no more than one piece and
 * what the stream's last read brought past it.
 *
 * @example
 * const reader = new UploadReader(upload.bytes)
 * const first = await reader.take(upload.blobs[0].bytes)
 */
export class UploadReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private buffered: Uint8Array[] = []
  private held = 0

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader()
  }

  /** The next `length` bytes of the stream. */
  async take(length: number): Promise<Uint8Array> {
    while (this.held < length) {
      const { done, value } = await this.reader.read()
      if (done) throw new Error('an upload ended before its blobs did')
      this.buffered.push(value)
      this.held += value.byteLength
    }
    const all = this.buffered.length === 1 ? this.buffered[0]! : concat(this.buffered, this.held)
    this.buffered = all.byteLength > length ? [all.subarray(length)] : []
    this.held -= length
    return all.subarray(0, length)
  }

  /** Lets the stream go (the reader took what it needed). */
  release(): void {
    this.reader.releaseLock()
  }
}

/**
 * The staged blobs of an upload, read from its stream (each cut at its length), by name.
 *
 * @example
 * const staged = await readUpload(upload) // Map { 'sha256:…' => { mediaType, bytes, data, … } }
 */
export async function readUpload(upload: BlobUpload | null | undefined): Promise<Map<string, StagedBlob>> {
  const staged = new Map<string, StagedBlob>()
  if (!upload?.bytes) return staged
  const reader = new UploadReader(upload.bytes)
  for (const blob of upload.blobs) staged.set(blob.ref, { ...blob, data: await reader.take(blob.bytes) })
  reader.release()
  return staged
}

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  const all = new Uint8Array(length)
  let at = 0
  for (const piece of pieces) {
    all.set(piece, at)
    at += piece.byteLength
  }
  return all
}
