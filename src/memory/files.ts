import { ServiceError } from '../contract/errors'
import type {
  MemoryEdit,
  MemoryFileJson,
  MemoryListJson,
  MemoryVersionsJson,
  MemoryWriteJson,
  MemoryWritesJson,
} from '../contract/schemas/memories'
import { insertAfter, replaceOnce } from './edits'
import { isInside } from './paths'
import type { FileHead } from './table'
import { MEMORY_FILE_BYTES, MemoryRefused, type MemoryTree } from './tree'

/** An `If-Match` header as read: any live version (`*`), or one of these versions. */
export type IfMatch = { any: true } | { versions: number[] }

const writeJson = (head: FileHead): MemoryWriteJson => ({
  path: head.path,
  version: head.version,
  size: head.size,
  deleted: head.deleted,
  updatedAt: head.updatedAt,
})

const notFound = (path: string): never => {
  throw new ServiceError('not_found', `no memory file at ${path}`)
}

/** A refusal of the store as the contract's error, naming the field it came from. */
function contractError(refused: MemoryRefused, field: string): ServiceError {
  switch (refused.refusal) {
    case 'too_large':
      return new ServiceError(
        'payload_too_large',
        `${field}: the file would be ${refused.amount} bytes; a memory file holds at most ${MEMORY_FILE_BYTES} bytes (100 KiB)`,
      )
    case 'too_many':
      return new ServiceError(
        'payload_too_large',
        `path: the memory store holds ${refused.amount} files, the most it may (MEMORY_MAX_FILES): delete one first`,
      )
    case 'is_directory':
      return new ServiceError('path_conflict', `path: ${refused.path} is a directory`)
    case 'file_above':
      return new ServiceError('path_conflict', `path: ${refused.path} is a file, so it holds no other file`)
  }
}

/** Runs a change of the store, its refusals answered as the contract's errors. */
function changing<T>(field: string, change: () => T): T {
  try {
    return change()
  } catch (error) {
    throw error instanceof MemoryRefused ? contractError(error, field) : error
  }
}

/**
 * `/v1/memories`: a user's memory files as the REST routes read and change them, over their
 * store's rules (see {@link MemoryTree}). Paths are checked by the route (see `pathProblem`);
 * `If-Match` is compared here, in the same transaction as the write it guards, so a stale writer
 * is refused and no version is lost.
 *
 * @example
 * const files = new MemoryFiles(tree)
 * files.put('/memories/a.md', 'hello', null, now) // { path: '/memories/a.md', version: 1, … }
 */
export class MemoryFiles {
  constructor(private readonly tree: MemoryTree) {}

  /** The live files whose path starts with `prefix`, in path order. */
  list(prefix: string): MemoryListJson {
    return {
      files: this.tree.table
        .files(prefix)
        .map((file) => ({ path: file.path, size: file.size, version: file.version, updatedAt: file.updatedAt })),
    }
  }

  /** A live file, or one of its versions (a delete is no content: 404). */
  read(path: string, version?: number): MemoryFileJson {
    if (version === undefined) {
      const file = this.tree.read(path) ?? notFound(path)
      return { path, content: file.content, version: file.head.version, updatedAt: file.head.updatedAt }
    }
    const found = this.tree.table.version(path, version)
    if (!found) throw new ServiceError('not_found', `version ${version} of ${path} does not exist`)
    if (found.deleted) throw new ServiceError('not_found', `version ${version} of ${path} is its delete`)
    return { path, content: found.content ?? '', version, updatedAt: found.createdAt }
  }

  /** Every version of a path, deletes included (404 when it was never written). */
  versions(path: string): MemoryVersionsJson {
    const versions = this.tree.table.versions(path)
    if (versions.length === 0) notFound(path)
    return {
      versions: versions.map(({ version, size, deleted, createdAt, movedFrom, movedTo }) => ({
        version,
        size,
        deleted,
        createdAt,
        ...(movedFrom ? { movedFrom } : {}),
        ...(movedTo ? { movedTo } : {}),
      })),
    }
  }

  /** Creates or replaces a file. */
  put(path: string, content: string, ifMatch: IfMatch | null, now: string): MemoryWriteJson {
    this.checkIfMatch(path, ifMatch)
    return writeJson(changing('content', () => this.tree.write(path, content, now)))
  }

  /** Edits a file: one exact replacement, or lines inserted after a line. */
  patch(path: string, edit: MemoryEdit, ifMatch: IfMatch | null, now: string): MemoryWriteJson {
    this.checkIfMatch(path, ifMatch)
    const { content } = this.tree.read(path) ?? notFound(path)
    const edited = 'replace' in edit ? replaceOnce(content, edit.replace, path) : insertAfter(content, edit.insert, path)
    return writeJson(changing('replace' in edit ? 'replace.new' : 'insert.text', () => this.tree.write(path, edited, now)))
  }

  /** Deletes a file (its answer: the delete version), or a directory with every file in it. */
  delete(path: string, ifMatch: IfMatch | null, now: string): MemoryWriteJson | MemoryWritesJson {
    const kind = this.tree.kind(path)
    if (kind === 'none') notFound(path)
    if (kind === 'dir') {
      if (ifMatch) throw new ServiceError('invalid_request', `If-Match: names a file's version; ${path} is a directory`)
      return { path, files: this.tree.remove(path, now).map(writeJson) }
    }
    this.checkIfMatch(path, ifMatch)
    return writeJson(this.tree.remove(path, now)[0]!)
  }

  /** Moves a file or a directory to a free path outside it; each file moved is a new version there. */
  rename(from: string, to: string, now: string): MemoryWriteJson | MemoryWritesJson {
    const kind = this.tree.kind(from)
    if (kind === 'none') notFound(from)
    if (this.tree.kind(to) !== 'none') throw new ServiceError('path_conflict', `to: ${to} exists already`)
    if (isInside(to, from)) throw new ServiceError('invalid_request', `to: ${to} is inside ${from}`)
    const above = this.tree.fileAbove(to)
    if (above) throw new ServiceError('path_conflict', `to: ${above} is a file, so it holds no other file`)
    const moved = this.tree.move(from, to, now).map(writeJson)
    return kind === 'file' ? moved[0]! : { path: to, files: moved }
  }

  /** Refuses a write whose `If-Match` names another version than the file's newest (412). */
  private checkIfMatch(path: string, ifMatch: IfMatch | null): void {
    if (!ifMatch) return
    const head = this.tree.table.head(path)
    const live = head !== null && !head.deleted
    const matches = 'any' in ifMatch ? live : head !== null && ifMatch.versions.includes(head.version)
    if (matches) return
    const now = head ? `is at version ${head.version}${head.deleted ? ' (a delete)' : ''}` : 'has no version'
    throw new ServiceError('precondition_failed', `If-Match: ${path} ${now}, not ${ifMatchText(ifMatch)}`)
  }
}

const ifMatchText = (ifMatch: IfMatch) => ('any' in ifMatch ? 'a live file (*)' : ifMatch.versions.join(' or '))
