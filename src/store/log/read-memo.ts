/**
 * Reads kept until the session's next write (the version they were read at): a request reads its
 * prompt's state and newest turn several times between writes.
 *
 * @example
 * const memo = new ReadMemo()
 * memo.read('newestTurn', record.version, () => readNewestTurn())
 */
export class ReadMemo {
  private readonly memo = new Map<string, unknown>()
  private memoVersion = -1

  /** A read of this request, kept until the session's next write. */
  read<T>(key: string, version: number, read: () => T): T {
    if (version !== this.memoVersion) {
      this.memo.clear()
      this.memoVersion = version
    }
    if (!this.memo.has(key)) this.memo.set(key, read())
    return this.memo.get(key) as T
  }

  /** Forgets every kept read: what they were read from changes without a new version (a rewind begun or written). */
  clear(): void {
    this.memo.clear()
  }
}
