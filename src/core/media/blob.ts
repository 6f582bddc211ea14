/** What is known of an image's or a document's bytes, read from them when they came. */
export interface BlobInfo {
  mediaType: string
  /** The decoded size. */
  bytes: number
  width?: number
  height?: number
  /** A PDF's page count, when it could be read. */
  pages?: number
}

/**
 * Bytes a request brought, named by their SHA-256 (`sha256:<hex>`: see `blobRef`), on their way to
 * be stored once with the first event that names them.
 */
export interface StagedBlob extends BlobInfo {
  ref: string
  data: Uint8Array
}
