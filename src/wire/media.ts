import { type BlobUpload, uploadOf } from '../contract/blob-upload'
import { ServiceError } from '../contract/errors'
import { SIZE_LIMITS } from '../contract/limits'
import type { TurnInput, TurnRequest } from '../contract/schemas'
import type { ContentInput, PartInput } from '../contract/schemas/parts'
import {
  type Content,
  contentOf,
  type ImageDetail,
  isMediaPart,
  type Message,
  type Part,
  type StoredPart,
  type UrlPart,
} from '../core'
import { decodeBase64 } from '../core/media/base64'
import type { StagedBlob } from '../core/media/blob'
import { parseDataUrl } from '../core/media/data-url'
import { imageSize } from '../core/media/image-size'
import { blobRef } from '../core/media/parts'
import { pdfPageCountDeep } from '../core/media/pdf-pages'
import { mediaTypeProblem, normalizeMediaType, sniffMediaType } from '../core/media/sniff'
import { blobOfUrl } from './blob-url'

/** What a binary part says besides its bytes. */
export interface PartExtras {
  title?: string
  detail?: ImageDetail
}

const MIB = 1024 * 1024

/**
 * Where a request's images and documents named by another session's blob URL are read: a
 * Responses item the service showed by its blob URL, sent by the client into another session (the
 * Agents SDK's conversation session sends the conversation's items to `/v1/responses`, which
 * stores them in a session of its own).
 */
export interface BlobsElsewhere {
  /** The session the request writes to (null: none, a request passed through unstored). */
  sessionId: string | null
  /**
   * A blob as the caller's session `sessionId` holds it: its type, size and bytes (a stream, read or
   * cancelled by the caller); null when it holds none (or is no session of the caller's).
   */
  read(sessionId: string, ref: string): Promise<{ mediaType: string; bytes: number; body: ReadableStream<Uint8Array> } | null>
}

/** The SHA-256 of bytes, as lowercase hex. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))
  let hex = ''
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/**
 * A request's images and documents as the Worker reads them, in any door's shape: each one's
 * bytes decoded (base64 strictly), checked against its declared type by their signature, held to
 * the size limit, hashed, and what can be read of them read (pixels, pages); the part becomes a
 * reference to its blob (see `StoredPart`) and its bytes wait in {@link staged} for the session
 * object, which stores each once. Every problem is a 400 (or a 413 over the limit) naming the field.
 *
 * @example
 * const media = new MediaIntake()
 * const part = await media.base64('messages[0].content[1]', 'image', 'image/png', body)
 * const upload = media.upload() // the bytes, for the object
 */
export class MediaIntake {
  readonly staged = new Map<string, StagedBlob>()
  readonly refs: { ref: string; field: string }[] = []

  /** Bytes read from other sessions so far (see {@link url}): at most a media request's body. */
  private readElsewhere = 0

  /**
   * `origin`: this service's, whose blob URLs (a Responses item's image) are read back as the blobs
   * they name; `elsewhere`: where the bytes of one that names another of the caller's sessions are
   * read (without it, such a URL names a blob the request's session must hold).
   */
  constructor(
    private readonly origin: string | null = null,
    private readonly elsewhere: BlobsElsewhere | null = null,
  ) {}

  /** A part given by its bytes. */
  async bytes(field: string, type: 'image' | 'document', declared: string, data: Uint8Array, extras: PartExtras = {}) {
    if (data.byteLength > SIZE_LIMITS.partBytes)
      throw new ServiceError(
        'payload_too_large',
        `${field}: ${data.byteLength} bytes; an image or document may hold ${SIZE_LIMITS.partBytes / MIB} MiB`,
      )
    const problem = mediaTypeProblem(declared, data, type)
    if (problem) throw new ServiceError('invalid_request', `${field}: ${problem}`)
    const mediaType = normalizeMediaType(declared)
    const ref = blobRef(await sha256Hex(data))
    const size = type === 'image' ? imageSize(data, mediaType) : null
    const pages = mediaType === 'application/pdf' ? await pdfPageCountDeep(data) : null
    const known = {
      mediaType,
      bytes: data.byteLength,
      ...(size ? { width: size.width, height: size.height } : {}),
      ...(pages !== null ? { pages } : {}),
    }
    if (!this.staged.has(ref)) this.staged.set(ref, { ref, ...known, data })
    return { type, blob: ref, ...known, ...extras } satisfies StoredPart
  }

  /** A part given as base64 (a `data` field, an Anthropic `base64` source). */
  async base64(field: string, type: 'image' | 'document', declared: string, text: string, extras: PartExtras = {}) {
    const decoded = decodeBase64(text)
    if (!decoded.ok) throw new ServiceError('invalid_request', `${field}: not base64: ${decoded.message}`)
    return this.bytes(field, type, declared, decoded.bytes, extras)
  }

  /** A part given as a `data:` URL (its type is the URL's). */
  async dataUrl(field: string, type: 'image' | 'document', url: string, extras: PartExtras = {}) {
    const parsed = parseDataUrl(url)
    if (!parsed.ok) throw new ServiceError('invalid_request', `${field}: ${parsed.message}`)
    return this.bytes(field, type, parsed.mediaType, parsed.data, extras)
  }

  /**
   * A part given by URL: a `data:` URL is read as its bytes, an https one kept as a reference; any
   * other is a 400. This service's blob URL names the blob: the request's session's own, or the
   * bytes read from the session it names (see {@link BlobsElsewhere}), once however often named.
   */
  async url(field: string, type: 'image' | 'document', url: string, extras: PartExtras & { mediaType?: string } = {}) {
    if (url.slice(0, 5).toLowerCase() === 'data:') return this.dataUrl(field, type, url, extras)
    const { mediaType, ...rest } = extras
    const blob = this.origin === null ? null : blobOfUrl(url, this.origin)
    if (blob) return this.blobUrl(field, type, blob, rest)
    if (!url.startsWith('https://'))
      throw new ServiceError('invalid_request', `${field}: an image or document URL must be https: or a data: URL`)
    return { type, url, ...(mediaType ? { mediaType: normalizeMediaType(mediaType) } : {}), ...rest } satisfies UrlPart
  }

  /** A part named by this service's blob URL (see {@link url}). */
  private async blobUrl(
    field: string,
    type: 'image' | 'document',
    blob: { sessionId: string; ref: string },
    extras: PartExtras,
  ): Promise<StoredPart> {
    if (!this.elsewhere || blob.sessionId === this.elsewhere.sessionId) return this.ref(field, type, blob.ref, extras)
    const held = this.staged.get(blob.ref)
    if (held) {
      const { ref, data: _, ...known } = held
      return { type, blob: ref, ...known, ...extras }
    }
    const found = await this.elsewhere.read(blob.sessionId, blob.ref)
    // Not held there either: the request's session must hold it (else a 400 naming the field).
    if (!found) return this.ref(field, type, blob.ref, extras)
    this.readElsewhere += found.bytes
    if (this.readElsewhere > SIZE_LIMITS.mediaRequestBytes) {
      await found.body.cancel()
      throw new ServiceError(
        'payload_too_large',
        `${field}: the images and documents this request names in other sessions hold over ${SIZE_LIMITS.mediaRequestBytes / MIB} MiB`,
      )
    }
    const data = new Uint8Array(await new Response(found.body).arrayBuffer())
    return this.bytes(field, type, found.mediaType, data, extras)
  }

  /**
   * A document given as a file's data (OpenAI's `file_data`): a `data:` URL, or bare base64 whose
   * type its bytes say (a PDF), else its name's extension (`.txt`: text/plain).
   */
  async file(field: string, data: string, filename?: string) {
    const extras = filename ? { title: filename } : {}
    if (data.slice(0, 5).toLowerCase() === 'data:') return this.dataUrl(field, 'document', data, extras)
    const decoded = decodeBase64(data)
    if (!decoded.ok) throw new ServiceError('invalid_request', `${field}: not base64: ${decoded.message}`)
    const declared =
      sniffMediaType(decoded.bytes) ?? (filename?.toLowerCase().endsWith('.txt') ? 'text/plain' : 'application/pdf')
    return this.bytes(field, 'document', declared, decoded.bytes, extras)
  }

  /**
   * A stored part as an export wrote it: with its bytes (`data`) when it is the first to name its
   * blob — checked against the name (a SHA-256 that does not match is a 400) — else a reference
   * to a blob brought earlier in the import or held by the session.
   */
  async exported(field: string, part: StoredPart & { data?: string }): Promise<StoredPart> {
    const { data, ...stored } = part
    if (data === undefined) {
      if (!this.staged.has(stored.blob)) this.refs.push({ ref: stored.blob, field: `${field}.blob` })
      return stored
    }
    const extras = { ...(stored.title ? { title: stored.title } : {}), ...(stored.detail ? { detail: stored.detail } : {}) }
    const read = await this.base64(`${field}.data`, stored.type, stored.mediaType, data, extras)
    if (read.blob !== stored.blob)
      throw new ServiceError('invalid_request', `${field}.data: its SHA-256 is ${read.blob}, not the part's blob ${stored.blob}`)
    return read
  }

  /**
   * A part naming a blob the session holds (a client's `blob` source): what is known of it is
   * filled in by the session object, which refuses a name it does not hold (naming `field`).
   */
  ref(field: string, type: 'image' | 'document', ref: string, extras: PartExtras = {}): StoredPart {
    this.refs.push({ ref, field })
    return { type, blob: ref, mediaType: '', bytes: 0, ...extras }
  }

  /** A part of the native API (see `PartInputSchema`, which checked its shape). */
  async input(field: string, part: PartInput): Promise<Part> {
    if (part.type === 'text') return { type: 'text', text: part.text ?? '' }
    const extras = { ...(part.title ? { title: part.title } : {}), ...(part.detail ? { detail: part.detail } : {}) }
    if (part.data !== undefined) return this.base64(`${field}.data`, part.type, part.mediaType!, part.data, extras)
    if (part.url !== undefined) return this.url(`${field}.url`, part.type, part.url, { ...extras, mediaType: part.mediaType })
    return this.ref(`${field}.blob`, part.type, part.blob!, extras)
  }

  /** The bytes and references for the session object (null: the request brought none). */
  upload(): BlobUpload | null {
    return uploadOf([...this.staged.values()], this.refs)
  }
}

/**
 * The 400 for a message with more images and documents than a message may hold.
 *
 * @example
 * checkMediaCount('messages[3]', parts.filter(isMediaPart).length)
 */
export function checkMediaCount(field: string, count: number): void {
  if (count > SIZE_LIMITS.mediaParts)
    throw new ServiceError(
      'payload_too_large',
      `${field}: ${count} images and documents; a message may hold ${SIZE_LIMITS.mediaParts}`,
    )
}

/** A message of the native API, its content and tool data as a client sends them (see `MessageSchema`). */
type MessageInput = Omit<Message, 'content' | 'toolResponses'> & {
  content: ContentInput | null
  toolResponses?: { id: string; name: string; data: ContentInput }[]
}

/**
 * A native API message as the session object takes it: each image or document read (see
 * {@link MediaIntake.input}), text alone kept as a string; at most `mediaParts` of them.
 *
 * @example
 * const message = await nativeMessage('events[0].message', body.events[0].message, media)
 */
export async function nativeMessage(field: string, input: MessageInput, media: MediaIntake): Promise<Message> {
  let count = 0
  const read = async (where: string, content: ContentInput): Promise<Content> => {
    if (typeof content === 'string') return content
    const parts: Part[] = []
    for (const [i, part] of content.entries()) parts.push(await media.input(`${where}[${i}]`, part))
    count += parts.filter(isMediaPart).length
    return contentOf(parts)
  }
  const { toolResponses, content, ...rest } = input
  const message: Message = { ...rest, content: content === null ? null : await read(`${field}.content`, content) }
  if (toolResponses) {
    message.toolResponses = []
    for (const [i, response] of toolResponses.entries())
      message.toolResponses.push({ ...response, data: await read(`${field}.toolResponses[${i}].data`, response.data) })
  }
  checkMediaCount(field, count)
  return message
}

/**
 * A `/turns` request as the session object takes it: its content's and its tool results' images
 * and documents read (see {@link MediaIntake.input}).
 *
 * @example
 * const input = await nativeTurn(body, media)
 */
export async function nativeTurn(body: TurnRequest, media: MediaIntake): Promise<TurnInput> {
  const read = async (field: string, content: ContentInput): Promise<Content> => {
    if (typeof content === 'string') return content
    const parts: Part[] = []
    for (const [i, part] of content.entries()) parts.push(await media.input(`${field}[${i}]`, part))
    checkMediaCount(field, parts.filter(isMediaPart).length)
    return contentOf(parts)
  }
  const { content, toolResults, ...rest } = body
  const input: TurnInput = rest
  if (content !== undefined) input.content = await read('content', content)
  if (toolResults) {
    input.toolResults = []
    for (const [i, { data, ...result }] of toolResults.entries())
      input.toolResults.push({ ...result, ...(data !== undefined ? { data: await read(`toolResults[${i}].data`, data) } : {}) })
  }
  return input
}
