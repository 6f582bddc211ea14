/** How many bytes of images and documents the isolate keeps in memory, and the largest one it keeps. */
export const BLOB_CACHE_LIMITS = { perBlob: 4 * 1024 * 1024, total: 24 * 1024 * 1024 }

/**
 * Bytes of stored blobs kept for the next prompt that holds them (a client resends its screenshot
 * on every turn): one budget for every session object of the isolate, the least recently used
 * dropped first (a `Map` keeps its keys in insertion order: re-inserting marks one as used). Keyed
 * by owner, as the body cache is: what a wiped session kept is never read again, and ages out.
 *
 * @example
 * const owner = isolateBlobs.newOwner()
 * isolateBlobs.keep(owner, hash, bytes)
 * isolateBlobs.get(owner, hash) // the bytes, until they are the least recently used past the budget
 */
export class BlobCache {
  private readonly kept = new Map<string, Uint8Array>()
  private bytes = 0
  private owners = 0

  constructor(private readonly limits = BLOB_CACHE_LIMITS) {}

  /** A key for one session's blobs (a new one after the session was wiped). */
  newOwner(): number {
    return ++this.owners
  }

  get(owner: number, hash: string): Uint8Array | undefined {
    const key = `${owner}/${hash}`
    const found = this.kept.get(key)
    if (found) {
      this.kept.delete(key)
      this.kept.set(key, found)
    }
    return found
  }

  /** Keeps the bytes unless they are over the per-blob limit, dropping the least recently used past the budget. */
  keep(owner: number, hash: string, data: Uint8Array): void {
    const key = `${owner}/${hash}`
    if (data.byteLength > this.limits.perBlob || this.kept.has(key)) return
    this.kept.set(key, data)
    this.bytes += data.byteLength
    for (const [oldest, dropped] of this.kept) {
      if (this.bytes <= this.limits.total) break
      this.kept.delete(oldest)
      this.bytes -= dropped.byteLength
    }
  }

  /** Bytes kept, for tests and benchmarks. */
  get size(): number {
    return this.bytes
  }
}

/** The isolate's one blob cache: every session object running in it shares the budget. */
export const isolateBlobs = new BlobCache()
