import { createContext } from 'preact'
import { useContext, useEffect, useRef, useState } from 'preact/hooks'
import type { Content } from '../src/core/events'
import { formatBytes } from '../src/core/media/placeholder'
import { isMediaPart, type MediaPart, partsOf } from '../src/core/parts'
import { partPlaceholder } from '../src/core/parts/placeholder'
import type { Api } from './api'
import { sessionPath } from './format'

/** Reads a stored blob's bytes with the user's token (an `<img src>` cannot send it). */
export type BlobReader = (blob: string) => Promise<Blob>

/** The blob reader of the session on screen (see {@link blobReader}). */
export const BlobReaderContext = createContext<BlobReader | null>(null)

/**
 * The reader of a session's blobs, through its blob route; each read once while the page lives
 * (a blob never changes: the route says `immutable`).
 *
 * @example
 * <BlobReaderContext.Provider value={blobReader(api, sessionId)}>…</BlobReaderContext.Provider>
 */
export function blobReader(api: Api, sessionId: string): BlobReader {
  const read = new Map<string, Promise<Blob>>()
  return (blob) => {
    let found = read.get(blob)
    if (!found) {
      found = api.download(sessionPath(sessionId, `/blobs/${blob}`))
      found.catch(() => read.delete(blob))
      read.set(blob, found)
    }
    return found
  }
}

/** A content's images and documents: thumbnails and chips, in their order. */
export function MediaParts({ content }: { content: Content | null }) {
  const media = partsOf(content).filter(isMediaPart)
  if (media.length === 0) return null
  return (
    <div class="media-parts">
      {media.map((part, i) => (part.type === 'image' ? <Thumbnail key={i} part={part} /> : <DocumentChip key={i} part={part} />))}
    </div>
  )
}

/** An object URL for a stored blob's bytes while the component shows it; a URL part's own address. */
function useBlobUrl(part: MediaPart, wanted = true): { url: string | null; error: string | null } {
  const read = useContext(BlobReaderContext)
  const [url, setUrl] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const blob = 'blob' in part ? part.blob : null
  useEffect(() => {
    if (blob === null || read === null || !wanted) return
    let live = true
    let objectUrl: string | null = null
    read(blob).then(
      (bytes) => {
        if (!live) return
        objectUrl = URL.createObjectURL(bytes)
        setUrl(objectUrl)
      },
      (failed: Error) => live && setError(failed.message),
    )
    return () => {
      live = false
      if (objectUrl) URL.revokeObjectURL(objectUrl)
    }
  }, [blob, read, wanted])
  return { url, error }
}

/** What is known of a part, in words: its type, size, pixels or pages. */
function facts(part: MediaPart): string {
  if ('url' in part) return part.mediaType ?? part.type
  const size = part.width && part.height ? `, ${part.width}×${part.height}` : ''
  const pages = part.pages ? `, ${part.pages} page${part.pages === 1 ? '' : 's'}` : ''
  return `${part.mediaType}${size}${pages}, ${formatBytes(part.bytes)}`
}

/**
 * An image as a thumbnail, opened full size on click. An image known only by its https URL is a
 * link: the page loads nothing from a third party unasked.
 */
function Thumbnail({ part }: { part: MediaPart }) {
  const { url, error } = useBlobUrl(part)
  const dialog = useRef<HTMLDialogElement>(null)
  const label = partPlaceholder(part)
  if ('url' in part)
    return (
      <a class="media-link" href={part.url} target="_blank" rel="noreferrer noopener">
        {label}
      </a>
    )
  if (error) return <span class="media-missing">{`${label}: ${error}`}</span>
  return (
    <>
      <button type="button" class="thumbnail" title={facts(part)} onClick={() => dialog.current?.showModal()} disabled={!url}>
        {url ? <img src={url} alt={label} /> : <span class="hint">loading {facts(part)}…</span>}
      </button>
      <dialog ref={dialog} class="full-image" aria-label={label}>
        {url && <img src={url} alt={label} />}
        <p>
          {facts(part)} · <code>{'blob' in part ? part.blob.slice(0, 15) : ''}</code>{' '}
          <button type="button" class="chip" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </p>
      </dialog>
    </>
  )
}

/** A document as a chip: its title, type, pages and size, and a download of its bytes. */
function DocumentChip({ part }: { part: MediaPart }) {
  const [wanted, setWanted] = useState(false)
  const { url, error } = useBlobUrl(part, wanted)
  const link = useRef<HTMLAnchorElement>(null)
  const title = part.title ?? (part.mediaType === 'application/pdf' ? 'PDF document' : 'Document')
  // The bytes are read on the first click, then saved: a document may be large.
  useEffect(() => {
    if (url && wanted) link.current?.click()
  }, [url, wanted])
  const extension = part.mediaType === 'application/pdf' ? '.pdf' : '.txt'
  const base = part.title ?? ('blob' in part ? part.blob.slice('sha256:'.length, 19) : 'document')
  const name = base.toLowerCase().endsWith(extension) ? base : `${base}${extension}`
  return (
    <span class="doc-chip">
      <span class="doc-title">{title}</span>
      <span class="hint">{facts(part)}</span>
      {'url' in part ? (
        <a href={part.url} target="_blank" rel="noreferrer noopener">
          Open
        </a>
      ) : (
        <>
          <button type="button" class="chip" onClick={() => (url ? link.current?.click() : setWanted(true))}>
            Download
          </button>
          <a ref={link} href={url ?? undefined} download={name} hidden>
            {name}
          </a>
        </>
      )}
      {error && <span class="error">{error}</span>}
    </span>
  )
}
