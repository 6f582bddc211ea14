import { Sql } from '../sql'

/** A path's newest version: the file as it is now (`deleted`: its newest version is a delete). */
export interface FileHead {
  path: string
  version: number
  /** UTF-8 bytes of the content (0 for a delete). */
  size: number
  deleted: boolean
  updatedAt: string
}

/** One version of a file, as kept for ever. */
export interface FileVersion {
  version: number
  size: number
  deleted: boolean
  createdAt: string
  /** The content of a write (null for a delete). */
  content: string | null
  /** A rename's two halves: the path this version's content came from, or went to. */
  movedFrom: string | null
  movedTo: string | null
}

type HeadRow = { path: string; version: number; size: number; deleted: number; updated_at: string }
type VersionRow = {
  version: number
  size: number
  deleted: number
  created_at: string
  content: string | null
  moved_from: string | null
  moved_to: string | null
}

const headOf = (row: HeadRow): FileHead => ({
  path: row.path,
  version: row.version,
  size: row.size,
  deleted: row.deleted === 1,
  updatedAt: row.updated_at,
})

const versionOf = (row: VersionRow): FileVersion => ({
  version: row.version,
  size: row.size,
  deleted: row.deleted === 1,
  createdAt: row.created_at,
  content: row.content,
  movedFrom: row.moved_from,
  movedTo: row.moved_to,
})

const utf8 = new TextEncoder()

/** The last path that starts with `prefix`, for a range scan: every such path sorts below it. */
const rangeEnd = (prefix: string) => `${prefix}\u{10FFFF}`

/**
 * One user's memory files in their memory object's SQLite: every version of every path kept
 * (`memory_versions`), each path's newest (`memory_files`, a delete included, so that versions
 * go on counting after one), and the directories files were made in (`memory_dirs`: a directory
 * stays until it is deleted or renamed, as on a disk). The tables are made by the first write.
 * Storage only: what a change may do is `MemoryTree`'s to decide.
 *
 * @example
 * const table = new MemoryTable(ctx.storage.sql)
 * table.addVersion('/memories/a.md', 'hello', new Date().toISOString())
 */
export class MemoryTable {
  private readonly sql: Sql
  /** Whether the tables exist (null: not looked yet). A user who never wrote a file has no memory storage at all. */
  private made: boolean | null = null

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
  }

  /** Whether the tables exist: looked up once per instance, so a read of a store never written writes nothing. */
  private exists(): boolean {
    this.made ??= this.sql.first`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'memory_files'` !== null
    return this.made
  }

  /** The storage was erased, or a transaction that may have made the tables rolled back: look again. */
  recheck(): void {
    this.made = null
  }

  /** The tables, made by the first write. */
  private create(): void {
    if (this.exists()) return
    this.made = true
    this.sql.run`CREATE TABLE IF NOT EXISTS memory_files (
      path TEXT PRIMARY KEY, version INTEGER NOT NULL, size INTEGER NOT NULL, deleted INTEGER NOT NULL, updated_at TEXT NOT NULL)`
    this.sql.run`CREATE TABLE IF NOT EXISTS memory_versions (
      path TEXT NOT NULL, version INTEGER NOT NULL, size INTEGER NOT NULL, deleted INTEGER NOT NULL, created_at TEXT NOT NULL,
      content TEXT, moved_from TEXT, moved_to TEXT, PRIMARY KEY (path, version))`
    this.sql.run`CREATE TABLE IF NOT EXISTS memory_dirs (path TEXT PRIMARY KEY)`
    // Live files counted as they change, so a write checks MEMORY_MAX_FILES reading one row.
    this.sql
      .run`CREATE TABLE IF NOT EXISTS memory_count (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), files INTEGER NOT NULL)`
  }

  /** The path's newest version (null: never written). */
  head(path: string): FileHead | null {
    if (!this.exists()) return null
    const row = this.sql.first<HeadRow>`SELECT path, version, size, deleted, updated_at FROM memory_files WHERE path = ${path}`
    return row ? headOf(row) : null
  }

  /** One version of a path (null: none such). */
  version(path: string, version: number): FileVersion | null {
    if (!this.exists()) return null
    const row = this.sql.first<VersionRow>`SELECT version, size, deleted, created_at, content, moved_from, moved_to
      FROM memory_versions WHERE path = ${path} AND version = ${version}`
    return row ? versionOf(row) : null
  }

  /** Every version of a path, oldest first, without their content. */
  versions(path: string): FileVersion[] {
    if (!this.exists()) return []
    return this.sql.all<VersionRow>`SELECT version, size, deleted, created_at, NULL AS content, moved_from, moved_to
        FROM memory_versions WHERE path = ${path} ORDER BY version`.map(versionOf)
  }

  /** The live files whose path starts with `prefix`, in path order (by UTF-8 bytes). */
  files(prefix: string): FileHead[] {
    if (!this.exists()) return []
    return this.sql.all<HeadRow>`SELECT path, version, size, deleted, updated_at FROM memory_files
        WHERE path >= ${prefix} AND path < ${rangeEnd(prefix)} AND deleted = 0 ORDER BY path`.map(headOf)
  }

  /** The paths and sizes of the live files whose path starts with `prefix` (what a listing shows of them). */
  sizes(prefix: string): { path: string; size: number }[] {
    if (!this.exists()) return []
    return this.sql.all<{ path: string; size: number }>`SELECT path, size FROM memory_files
      WHERE path >= ${prefix} AND path < ${rangeEnd(prefix)} AND deleted = 0`
  }

  /** Whether a directory was made at this path (and not deleted or renamed since). */
  isDir(path: string): boolean {
    if (!this.exists()) return false
    return this.sql.first`SELECT 1 AS found FROM memory_dirs WHERE path = ${path}` !== null
  }

  /** The directories inside `dir`, at any depth. */
  dirsInside(dir: string): string[] {
    if (!this.exists()) return []
    const prefix = `${dir}/`
    return this.sql.all<{
      path: string
    }>`SELECT path FROM memory_dirs WHERE path >= ${prefix} AND path < ${rangeEnd(prefix)} ORDER BY path`.map((row) => row.path)
  }

  /** How many live files there are. */
  liveFiles(): number {
    if (!this.exists()) return 0
    return this.sql.first<{ files: number }>`SELECT files FROM memory_count`?.files ?? 0
  }

  /**
   * A new version of a path, numbered after its last: its content, or a delete (`null`). Answers
   * the path's new head.
   */
  addVersion(path: string, content: string | null, now: string, moved: { from?: string; to?: string } = {}): FileHead {
    this.create()
    const before = this.head(path)
    const version = (before?.version ?? 0) + 1
    const size = content === null ? 0 : utf8.encode(content).length
    const deleted = content === null ? 1 : 0
    this.sql.run`INSERT INTO memory_versions (path, version, size, deleted, created_at, content, moved_from, moved_to)
      VALUES (${path}, ${version}, ${size}, ${deleted}, ${now}, ${content}, ${moved.from ?? null}, ${moved.to ?? null})`
    this.sql
      .run`INSERT INTO memory_files (path, version, size, deleted, updated_at) VALUES (${path}, ${version}, ${size}, ${deleted}, ${now})
      ON CONFLICT (path) DO UPDATE SET version = excluded.version, size = excluded.size, deleted = excluded.deleted,
        updated_at = excluded.updated_at`
    const live = (before !== null && !before.deleted ? 1 : 0) - (1 - deleted)
    if (live !== 0) {
      this.sql.run`INSERT INTO memory_count (singleton, files) VALUES (1, ${-live})
        ON CONFLICT (singleton) DO UPDATE SET files = files - ${live}`
    }
    return { path, version, size, deleted: deleted === 1, updatedAt: now }
  }

  addDir(path: string): void {
    this.create()
    this.sql.run`INSERT OR IGNORE INTO memory_dirs (path) VALUES (${path})`
  }

  removeDir(path: string): void {
    if (!this.exists()) return
    this.sql.run`DELETE FROM memory_dirs WHERE path = ${path}`
  }

  /** Every version of every path, in path then version order, after `after`: at most `limit`, or fewer once they hold `chars` characters of content. */
  page(after: { path: string; version: number } | null, limit: number, chars: number): (FileVersion & { path: string })[] {
    if (!this.exists()) return []
    const from = after ?? { path: '', version: 0 }
    const rows = this.sql.each<
      VersionRow & { path: string }
    >`SELECT path, version, size, deleted, created_at, content, moved_from, moved_to
      FROM memory_versions WHERE path > ${from.path} OR (path = ${from.path} AND version > ${from.version})
      ORDER BY path, version LIMIT ${limit}`
    const page: (FileVersion & { path: string })[] = []
    let held = 0
    for (const row of rows) {
      page.push({ path: row.path, ...versionOf(row) })
      held += row.content?.length ?? 0
      if (held >= chars) break
    }
    return page
  }
}
