import { type BlobUpload, readUpload } from '../contract/blob-upload'
import { ServiceError } from '../contract/errors'
import type { BlobInfo, StagedBlob } from '../core/media/blob'
import type { SessionStorage } from '../store/session-storage'

/** A request's images and documents as the session object takes them: the bytes it brought, what is known of those it names. */
export interface RequestBlobs {
  staged: ReadonlyMap<string, StagedBlob>
  /** The session's blobs the request names by reference, and what is known of them. */
  known: ReadonlyMap<string, BlobInfo>
}

/**
 * The images and documents a request brought (see `BlobUpload`), read in the session object; a
 * blob the request names by reference (a client's `blob` source) that the session does not hold
 * is a 400 naming the field, before anything runs.
 *
 * @example
 * const { staged, known } = await requestBlobs(storage, upload)
 */
export async function requestBlobs(storage: SessionStorage, upload: BlobUpload | null | undefined): Promise<RequestBlobs> {
  const staged = await readUpload(upload)
  const refs = (upload?.refs ?? []).filter(({ ref }) => !staged.has(ref))
  if (refs.length === 0) return { staged, known: new Map() }
  const known = (await storage.find()) ? storage.blobs.info(refs.map(({ ref }) => ref)) : new Map<string, BlobInfo>()
  const missing = refs.find(({ ref }) => !known.has(ref))
  if (missing) throw new ServiceError('invalid_request', `${missing.field}: "${missing.ref}" is no blob of this session`)
  return { staged, known }
}

/**
 * A request with what the session knows of each blob it names by reference (a client's `blob`
 * source, which says nothing of its size): filled in before the request's events are made, so
 * each is estimated by its pixels or pages. Parts are found wherever they are in the request.
 *
 * @example
 * const input = withKnownBlobs(request, storage.blobs.info(upload.refs.map((r) => r.ref)))
 */
export function withKnownBlobs<T>(value: T, known: ReadonlyMap<string, BlobInfo>): T {
  if (known.size === 0 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => withKnownBlobs(item, known)) as T
  const record = value as Record<string, unknown>
  const info = typeof record.blob === 'string' ? known.get(record.blob) : undefined
  if (info) return { ...record, ...info } as T
  return Object.fromEntries(Object.entries(record).map(([key, item]) => [key, withKnownBlobs(item, known)])) as T
}
