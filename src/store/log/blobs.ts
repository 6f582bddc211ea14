import { type BlobUpload, UploadReader, uploadStream } from '../../contract/blob-upload'
import { type Content, MissingBlobError, type NewEvent, type Part, type StoredPart } from '../../core'
import type { BlobInfo, StagedBlob } from '../../core/media/blob'
import type { Sql } from '../../sql'
import { type BlobCache, isolateBlobs } from './blob-cache'

/** How much of a text/plain document the search index takes: its start, enough to find it by. */
export const INDEXED_DOCUMENT_BYTES = 256 * 1024

const NOTHING_STAGED: ReadonlyMap<string, StagedBlob> = new Map()

/** A chunk of a blob's bytes: one row's value, well under a value's 2 MB limit. */
export const BLOB_CHUNK_BYTES = 1024 * 1024

type InfoRow = {
  hash: string
  media_type: string
  bytes: number
  width: number | null
  height: number | null
  pages: number | null
}

const infoOf = (row: InfoRow): BlobInfo => ({
  mediaType: row.media_type,
  bytes: row.bytes,
  ...(row.width !== null ? { width: row.width } : {}),
  ...(row.height !== null ? { height: row.height } : {}),
  ...(row.pages !== null ? { pages: row.pages } : {}),
})

/**
 * A session's images and documents: each stored once by its SHA-256 however often it is sent,
 * in chunks (`blob_chunks`) with what is known of it (`blobs`), written in the transaction of the
 * first event that names it and deleted with the session. Bytes read for a prompt are kept in the
 * isolate's blob cache, so a screenshot resent on every turn is read from storage once.
 *
 * @example
 * blobs.write([{ ref, mediaType: 'image/png', bytes: data.byteLength, data }]) // inside the write's transaction
 * blobs.read(ref) // the bytes
 */
export class SessionBlobs {
  private owner: number

  constructor(
    private readonly sql: Sql,
    private readonly cache: BlobCache = isolateBlobs,
  ) {
    this.owner = cache.newOwner()
  }

  /** What is stored of these blobs, by name: one row each; a name the session does not hold is absent. */
  info(refs: readonly string[]): Map<string, BlobInfo> {
    const found = new Map<string, BlobInfo>()
    for (const ref of new Set(refs)) {
      const row = this.sql.first<InfoRow>`SELECT hash, media_type, bytes, width, height, pages FROM blobs WHERE hash = ${ref}`
      if (row) found.set(ref, infoOf(row))
    }
    return found
  }

  /** Writes blobs the session does not hold yet (see {@link resolve}; call it inside the write's transaction); answers how many. */
  write(blobs: Iterable<StagedBlob>): number {
    let written = 0
    for (const blob of blobs) {
      const chunks = Math.max(1, Math.ceil(blob.data.byteLength / BLOB_CHUNK_BYTES))
      this.sql.run`INSERT INTO blobs (hash, media_type, bytes, chunks, width, height, pages)
        VALUES (${blob.ref}, ${blob.mediaType}, ${blob.data.byteLength}, ${chunks}, ${blob.width ?? null}, ${blob.height ?? null}, ${blob.pages ?? null})`
      for (let n = 0; n < chunks; n++)
        this.sql.run`INSERT INTO blob_chunks (hash, n, data) VALUES (${blob.ref}, ${n}, ${chunkBuffer(blob.data, n)})`
      written++
    }
    return written
  }

  /** A blob's bytes (null: the session holds none by that name), kept in the isolate's cache for the next prompt. */
  read(ref: string): Uint8Array | null {
    const kept = this.cache.get(this.owner, ref)
    if (kept) return kept
    const pieces = [...this.chunks(ref)]
    if (pieces.length === 0) return null
    const data = pieces.length === 1 ? pieces[0]! : concat(pieces)
    this.cache.keep(this.owner, ref, data)
    return data
  }

  /** A blob's bytes as a stream read a chunk at a time, with its media type and size; null when the session holds none by that name. */
  stream(ref: string): { mediaType: string; bytes: number; body: ReadableStream<Uint8Array> } | null {
    const info = this.info([ref]).get(ref)
    if (!info) return null
    const chunks = this.chunks(ref)
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel: () => void chunks.return(undefined),
    })
    return { mediaType: info.mediaType, bytes: info.bytes, body }
  }

  /** A blob's bytes, chunk by chunk as the reader takes them (a download: one chunk held at a time). */
  *chunks(ref: string): Generator<Uint8Array> {
    for (const row of this.sql.each<{ data: ArrayBuffer }>`SELECT data FROM blob_chunks WHERE hash = ${ref} ORDER BY n`)
      yield new Uint8Array(row.data)
  }

  /**
   * A text/plain blob's text, its first {@link INDEXED_DOCUMENT_BYTES} (what search indexes of
   * it): the staged bytes when the write brings them, else the stored ones; null for any other type.
   */
  text(ref: string, staged: ReadonlyMap<string, StagedBlob>): string | null {
    const brought = staged.get(ref)
    const info = brought ?? this.info([ref]).get(ref)
    if (info?.mediaType !== 'text/plain') return null
    const bytes = brought?.data ?? this.firstChunk(ref)
    return bytes ? new TextDecoder().decode(bytes.subarray(0, INDEXED_DOCUMENT_BYTES)) : null
  }

  /** A stored text/plain blob's text (see {@link text}): what an index written after its write reads. */
  storedText = (ref: string): string | null => this.text(ref, NOTHING_STAGED)

  private firstChunk(ref: string): Uint8Array | null {
    const row = this.sql.first<{ data: ArrayBuffer }>`SELECT data FROM blob_chunks WHERE hash = ${ref} AND n = 0`
    return row ? new Uint8Array(row.data) : null
  }

  /**
   * These blobs, those the session holds, as an upload (a fork's copy): their facts, and their
   * bytes read one chunk (one row) at a time as the stream is pulled. Null when it holds none.
   */
  upload(refs: readonly string[]): BlobUpload | null {
    const held = [...this.info(refs)].map(([ref, info]) => ({ ref, ...info }))
    if (held.length === 0) return null
    const sql = this.sql
    const pieces = (function* () {
      for (const blob of held)
        for (let n = 0; n * BLOB_CHUNK_BYTES < blob.bytes || n === 0; n++) {
          const row = sql.first<{ data: ArrayBuffer }>`SELECT data FROM blob_chunks WHERE hash = ${blob.ref} AND n = ${n}`
          if (!row) throw new Error(`blob ${blob.ref} lacks its chunk ${n}`)
          yield new Uint8Array(row.data)
        }
    })()
    const bytes = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.next()
        if (next.done) controller.close()
        else controller.enqueue(next.value)
      },
      cancel: () => void pieces.return(undefined),
    })
    return { blobs: held, refs: [], bytes }
  }

  /**
   * Writes an upload's blobs that the session does not hold, a chunk at a time as they arrive (a
   * fork's copy may be larger than an isolate should hold at once); each blob's row is written
   * after its chunks, so a blob is held only once it is whole.
   */
  async copy(upload: BlobUpload): Promise<void> {
    if (!upload.bytes) return
    const reader = new UploadReader(uploadStream(upload.bytes))
    for (const blob of upload.blobs) {
      const held = this.info([blob.ref]).has(blob.ref)
      const chunks = Math.max(1, Math.ceil(blob.bytes / BLOB_CHUNK_BYTES))
      for (let n = 0; n < chunks; n++) {
        const piece = await reader.take(Math.min(BLOB_CHUNK_BYTES, blob.bytes - n * BLOB_CHUNK_BYTES))
        if (!held)
          this.sql.run`INSERT OR REPLACE INTO blob_chunks (hash, n, data) VALUES (${blob.ref}, ${n}, ${piece.slice().buffer})`
      }
      if (!held)
        this.sql.run`INSERT INTO blobs (hash, media_type, bytes, chunks, width, height, pages)
          VALUES (${blob.ref}, ${blob.mediaType}, ${blob.bytes}, ${chunks}, ${blob.width ?? null}, ${blob.height ?? null}, ${blob.pages ?? null})`
    }
    reader.release()
  }

  /** Deletes every blob: what a copy that did not finish left in an object that holds no session (cleared as one is created). */
  clear(): void {
    this.sql.run`DELETE FROM blob_chunks`
    this.sql.run`DELETE FROM blobs`
    this.reset()
  }

  /**
   * Events as they are written: each stored part's facts (type, size, pixels, pages) as its blob's —
   * the staged one's when the write brings it, else the stored one's (one row) — and the staged
   * blobs they name that are not stored yet, to be written with them. A name the write neither
   * brings nor the session holds is a {@link MissingBlobError}: no event names a missing blob.
   */
  resolve(events: readonly NewEvent[], staged: ReadonlyMap<string, StagedBlob>): { events: NewEvent[]; write: StagedBlob[] } {
    const write = new Map<string, StagedBlob>()
    const known = new Map<string, BlobInfo>()
    const infoOf = (ref: string): BlobInfo => {
      const found = known.get(ref) ?? staged.get(ref) ?? this.info([ref]).get(ref)
      if (!found) throw new MissingBlobError(ref)
      known.set(ref, found)
      const brought = staged.get(ref)
      if (brought && !write.has(ref) && !this.sql.first`SELECT 1 AS held FROM blobs WHERE hash = ${ref}`) write.set(ref, brought)
      return found
    }
    const parts = (content: Content): Content =>
      typeof content === 'string'
        ? content
        : content.map((part: Part) => ('blob' in part ? withInfo(part, infoOf(part.blob)) : part))
    const resolved = events.map((event) => {
      if (event.type !== 'MESSAGE' || !holdsParts(event.message)) return event
      const { message } = event
      return {
        ...event,
        message: {
          ...message,
          content: message.content === null ? null : parts(message.content),
          ...(message.toolResponses
            ? { toolResponses: message.toolResponses.map((response) => ({ ...response, data: parts(response.data) })) }
            : {}),
        },
      }
    })
    return { events: resolved, write: [...write.values()] }
  }

  /** Forgets what the isolate kept of this session's blobs (the session was wiped). */
  reset(): void {
    this.owner = this.cache.newOwner()
  }
}

/**
 * Chunk `n` of a blob's bytes as the buffer bound to its row. A blob of one chunk that is its
 * whole buffer (an upload's bytes are: see `uploadOf`) is bound as it is: SQLite copies the value
 * anyway, so a copy made here first would be a second one.
 */
function chunkBuffer(data: Uint8Array, n: number): ArrayBuffer {
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength
  if (whole && data.byteLength <= BLOB_CHUNK_BYTES && data.buffer instanceof ArrayBuffer) return data.buffer
  return data.slice(n * BLOB_CHUNK_BYTES, (n + 1) * BLOB_CHUNK_BYTES).buffer
}

function concat(pieces: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(pieces.reduce((total, piece) => total + piece.byteLength, 0))
  let at = 0
  for (const piece of pieces) {
    all.set(piece, at)
    at += piece.byteLength
  }
  return all
}

/** Whether a message's content or a tool response holds parts (text alone is a string). */
const holdsParts = (message: { content: Content | null; toolResponses?: { data: Content }[] }) =>
  Array.isArray(message.content) || (message.toolResponses ?? []).some((response) => Array.isArray(response.data))

/**
 * A part with its blob's facts, whatever it said of them (a client's `blob` source says none), its
 * fields in the contract's order: type, mediaType, blob, bytes, width, height, pages, title, detail.
 */
function withInfo<P extends StoredPart>(part: P, info: BlobInfo): P {
  return {
    type: part.type,
    mediaType: info.mediaType,
    blob: part.blob,
    bytes: info.bytes,
    ...(info.width !== undefined ? { width: info.width } : {}),
    ...(info.height !== undefined ? { height: info.height } : {}),
    ...(info.pages !== undefined ? { pages: info.pages } : {}),
    ...(part.title !== undefined ? { title: part.title } : {}),
    ...(part.detail !== undefined ? { detail: part.detail } : {}),
  } as P
}
