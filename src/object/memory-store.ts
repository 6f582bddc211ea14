import { DurableObject } from 'cloudflare:workers'
import { type Outcome, toOutcome } from '../contract/errors'
import type { MemoryEdit, MemoryFileJson, MemoryVersionsJson, MemoryWriteJson, MemoryWritesJson } from '../contract/schemas'
import {
  type FileVersion,
  type IfMatch,
  type MemoryAnswer,
  MemoryFiles,
  MemoryTable,
  MemoryTree,
  maxFilesOf,
  runMemoryCommand,
} from '../memory'

/** An export page: at most this many versions, or fewer once they hold this many characters of content. */
const EXPORT_PAGE = { versions: 200, chars: 4 * 1024 * 1024 }

/** Where an export page starts: after this version of this path. */
export type MemoryExportCursor = { path: string; version: number }

/**
 * One user's memory store: their files under `/memories`, every version kept, in this object's
 * SQLite (see `MemoryTable`). An object of its own, apart from the user's index: the index is on
 * every turn's path (the user's limits), and a large table there would slow what every turn
 * waits for, while a turn without the memory tool never calls this one. Each method runs in one
 * transaction, one at a time: writes to a file are serial, an `If-Match` is checked against the
 * version it guards, and a refused change writes nothing.
 */
export class MemoryStore extends DurableObject<Env> {
  private readonly table: MemoryTable

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env)
    this.table = new MemoryTable(ctx.storage.sql)
  }

  /** The live files under `prefix` as their JSON (`MemoryListJson`): a text crosses RPC faster than a thousand objects. */
  list(prefix: string): Promise<Outcome<string>> {
    return toOutcome(() => JSON.stringify(this.files().list(prefix)))
  }

  read(path: string, version?: number): Promise<Outcome<MemoryFileJson>> {
    return toOutcome(() => this.files().read(path, version))
  }

  versions(path: string): Promise<Outcome<MemoryVersionsJson>> {
    return toOutcome(() => this.files().versions(path))
  }

  put(path: string, content: string, ifMatch: IfMatch | null): Promise<Outcome<MemoryWriteJson>> {
    return this.change((files, now) => files.put(path, content, ifMatch, now))
  }

  patch(path: string, edit: MemoryEdit, ifMatch: IfMatch | null): Promise<Outcome<MemoryWriteJson>> {
    return this.change((files, now) => files.patch(path, edit, ifMatch, now))
  }

  delete(path: string, ifMatch: IfMatch | null): Promise<Outcome<MemoryWriteJson | MemoryWritesJson>> {
    return this.change((files, now) => files.delete(path, ifMatch, now))
  }

  rename(from: string, to: string): Promise<Outcome<MemoryWriteJson | MemoryWritesJson>> {
    return this.change((files, now) => files.rename(from, to, now))
  }

  /**
   * One command of the memory tool, its arguments as the model wrote them (JSON), answered as the
   * SDK's handler answers it (see `runMemoryCommand`).
   */
  command(args: string): Promise<Outcome<MemoryAnswer>> {
    return toOutcome(() => {
      let input: unknown
      try {
        input = JSON.parse(args)
      } catch {
        return { text: 'Error: the arguments are not valid JSON', error: true }
      }
      const tree = this.tree()
      const now = new Date().toISOString()
      return this.inTransaction(() => runMemoryCommand(input, tree, now))
    })
  }

  /** A page of every version of every file, in path then version order, after `after` (what `GET /v1/export` writes). */
  exportPage(after: MemoryExportCursor | null): {
    versions: (FileVersion & { path: string })[]
    next: MemoryExportCursor | null
  } {
    const versions = this.table.page(after, EXPORT_PAGE.versions, EXPORT_PAGE.chars)
    const last = versions.at(-1)
    return { versions, next: last ? { path: last.path, version: last.version } : null }
  }

  /** Erases every file and every version (the user erased all): nothing is left to read. */
  async eraseAll(): Promise<void> {
    await this.ctx.storage.deleteAll()
    this.table.recheck()
  }

  private tree(): MemoryTree {
    return new MemoryTree(this.table, maxFilesOf(this.env))
  }

  private files(): MemoryFiles {
    return new MemoryFiles(this.tree())
  }

  /** A change of the REST routes, in one transaction: one that throws writes nothing. */
  private change<T>(work: (files: MemoryFiles, now: string) => T): Promise<Outcome<T>> {
    return toOutcome(() => {
      const files = this.files()
      const now = new Date().toISOString()
      return this.inTransaction(() => work(files, now))
    })
  }

  /** Work in one transaction; one that throws writes nothing (the tables it may have made included). */
  private inTransaction<T>(work: () => T): T {
    try {
      return this.ctx.storage.transactionSync(work)
    } catch (error) {
      this.table.recheck()
      throw error
    }
  }
}
