import { MEMORY_ROOT, movedPath, parentsOf } from './paths'
import type { FileHead, MemoryTable } from './table'

/** The most a memory file may hold: 100 KiB of UTF-8. */
export const MEMORY_FILE_BYTES = 100 * 1024

/** Files a user may have when MEMORY_MAX_FILES does not say. */
export const DEFAULT_MAX_FILES = 1000

/** What a path is now. */
export type PathKind = 'dir' | 'file' | 'none'

/** Why the store refused a change (each front end says it in its own words; nothing was written). */
export type MemoryRefusal =
  /** A directory on the way is a file (`path` names it). */
  | 'file_above'
  /** The path is a directory, not a file. */
  | 'is_directory'
  /** The file would be over {@link MEMORY_FILE_BYTES}. */
  | 'too_large'
  /** A new file would be one more than the user may have. */
  | 'too_many'

export class MemoryRefused extends Error {
  override readonly name = 'MemoryRefused'
  constructor(
    readonly refusal: MemoryRefusal,
    /** The path it is about: the file above, the directory, the file too large. */
    readonly path: string,
    /** The file's size it would have been (too_large), or the limit (too_many). */
    readonly amount = 0,
  ) {
    super(`${refusal}: ${path}`)
  }
}

const utf8 = new TextEncoder()

/**
 * The memory store's rules over its table: files and directories as on a disk (a file is made in
 * its directories, which stay until deleted or renamed; a path is a file or a directory, never
 * both), every change a new version, files at most {@link MEMORY_FILE_BYTES}, at most
 * `maxFiles` live files. Each change is checked whole before anything is written, and the
 * object runs it in one transaction: a refusal writes nothing.
 *
 * @example
 * const tree = new MemoryTree(table, 1000)
 * tree.write('/memories/notes/a.md', 'hello', now) // makes /memories/notes too
 */
export class MemoryTree {
  /** What paths were found to be since the last change: a command asks about the same path more than once. */
  private readonly kinds = new Map<string, PathKind>()

  constructor(
    readonly table: MemoryTable,
    readonly maxFiles: number,
  ) {}

  /** What the path is: the root and every made directory are directories. */
  kind(path: string): PathKind {
    const known = this.kinds.get(path)
    if (known) return known
    let kind: PathKind = 'dir'
    if (path !== MEMORY_ROOT && !this.table.isDir(path)) {
      const head = this.table.head(path)
      kind = head && !head.deleted ? 'file' : 'none'
    }
    this.kinds.set(path, kind)
    return kind
  }

  /** The outermost directory on the path's way that is a file, if any. */
  fileAbove(path: string): string | null {
    return parentsOf(path).find((parent) => this.kind(parent) === 'file') ?? null
  }

  /** A live file's content and head (null: no file there). */
  read(path: string): { head: FileHead; content: string } | null {
    const head = this.table.head(path)
    if (!head || head.deleted) return null
    return { head, content: this.table.version(path, head.version)!.content ?? '' }
  }

  /** Makes the directories a path is in (none of them a file: see {@link fileAbove}). */
  makeParents(path: string): void {
    this.kinds.clear()
    for (const parent of parentsOf(path)) this.table.addDir(parent)
  }

  /**
   * A new version of a file with this content, made in its directories: refused when the path is
   * a directory, a directory on its way is a file, the content is too large, or a new file would
   * be one too many.
   */
  write(path: string, content: string, now: string): FileHead {
    const kind = this.kind(path)
    if (kind === 'dir') throw new MemoryRefused('is_directory', path)
    const above = this.fileAbove(path)
    if (above) throw new MemoryRefused('file_above', above)
    const bytes = utf8.encode(content).length
    if (bytes > MEMORY_FILE_BYTES) throw new MemoryRefused('too_large', path, bytes)
    if (kind === 'none' && this.table.liveFiles() >= this.maxFiles) throw new MemoryRefused('too_many', path, this.maxFiles)
    this.makeParents(path)
    return this.table.addVersion(path, content, now)
  }

  /** Deletes a file (one delete version) or a directory with everything in it (a delete version for each file). */
  remove(path: string, now: string): FileHead[] {
    const kind = this.kind(path)
    this.kinds.clear()
    if (kind === 'file') return [this.table.addVersion(path, null, now)]
    const removed = this.table.files(`${path}/`).map((file) => this.table.addVersion(file.path, null, now))
    for (const dir of this.table.dirsInside(path)) this.table.removeDir(dir)
    this.table.removeDir(path)
    return removed
  }

  /**
   * Moves a file or a directory (with everything in it) to `to`, which is free and not inside
   * `from`, in directories made for it: each file a delete at its old path and a new version at
   * its new one, naming each other. Answers the new heads.
   */
  move(from: string, to: string, now: string): FileHead[] {
    const kind = this.kind(from)
    this.kinds.clear()
    if (kind === 'file') return [this.moveFile(from, to, now)]
    const files = this.table.files(`${from}/`)
    const dirs = this.table.dirsInside(from)
    this.makeParents(to)
    this.table.removeDir(from)
    this.table.addDir(to)
    for (const dir of dirs) {
      this.table.removeDir(dir)
      this.table.addDir(movedPath(dir, from, to))
    }
    return files.map((file) => this.moveFile(file.path, movedPath(file.path, from, to), now))
  }

  private moveFile(from: string, to: string, now: string): FileHead {
    const content = this.read(from)!.content
    this.makeParents(to)
    this.table.addVersion(from, null, now, { to })
    return this.table.addVersion(to, content, now, { from })
  }
}
