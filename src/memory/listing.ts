/**
 * The texts the memory tool answers `view` with, written as the SDK's own handler writes them
 * (`BetaLocalFilesystemMemoryTool` in `@anthropic-ai/sdk`): a directory's listing two levels
 * deep with sizes, a file's lines numbered.
 */

/** A directory's size as a listing shows it: a small directory's on ext4 (4096 bytes, `4K`). */
const DIRECTORY_BYTES = 4096

/** Widest line number (999,999 lines), padded to its width. */
const LINE_NUMBER_WIDTH = String(999999).length

/**
 * A size as the handler writes it: `0B`, `512B`, `1.5K`, `4K`.
 *
 * @example
 * fileSize(1536) // '1.5K'
 */
export function fileSize(bytes: number): string {
  if (bytes === 0) return '0B'
  const k = 1024
  const sizes = ['B', 'K', 'M', 'G']
  const i = Math.floor(Math.log(bytes) / Math.log(k))
  const size = bytes / k ** i
  return (size % 1 === 0 ? size.toString() : size.toFixed(1)) + sizes[i]
}

/** Lines numbered from `first`: the number right-aligned in six columns, a tab, the line. */
export const numbered = (lines: readonly string[], first: number): string =>
  lines.map((line, i) => `${String(i + first).padStart(LINE_NUMBER_WIDTH, ' ')}\t${line}`).join('\n')

/** What is inside a directory, at any depth, relative to it: files with their sizes, and directories. */
export interface DirectoryContents {
  files: { path: string; size: number }[]
  dirs: string[]
}

/** An entry of a listed directory: a file's size, or a directory's entries (a directory two levels down keeps none). */
type Entry = { size: number; children: Map<string, Entry> | null }

/**
 * The two levels of a directory's contents a listing shows, by name: its entries, and the entries
 * of each directory in it (deeper ones are never shown: each level's directories stand for them).
 */
function levelsOf(dir: string, contents: DirectoryContents): Map<string, Entry> {
  const top = new Map<string, Entry>()
  const offset = dir.length + 1
  const directory = (level: Map<string, Entry>, name: string): Map<string, Entry> => {
    let entry = level.get(name)
    if (!entry?.children) {
      entry = { size: DIRECTORY_BYTES, children: new Map() }
      level.set(name, entry)
    }
    return entry.children!
  }
  const place = (path: string, size: number | null) => {
    const first = path.indexOf('/', offset)
    if (first < 0) {
      if (size === null) directory(top, path.slice(offset))
      else top.set(path.slice(offset), { size, children: null })
      return
    }
    const inside = directory(top, path.slice(offset, first))
    const second = path.indexOf('/', first + 1)
    const name = path.slice(first + 1, second < 0 ? undefined : second)
    if (second >= 0 || size === null) directory(inside, name)
    else inside.set(name, { size, children: null })
  }
  for (const path of contents.dirs) place(path, null)
  for (const file of contents.files) place(file.path, file.size)
  return top
}

/**
 * A directory as the handler lists it: a header, the directory's own line, then its entries two
 * levels deep — each level in sort order, a directory followed by what is in it, hidden names
 * (`.…`) and `node_modules` left out — each with its size. `shown` is the path as the model wrote it.
 *
 * @example
 * directoryListing('/memories', '/memories', { files: [{ path: '/memories/a.md', size: 12 }], dirs: [] })
 * // "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n4K\t/memories\n12B\t/memories/a.md"
 */
export function directoryListing(shown: string, dir: string, contents: DirectoryContents): string {
  const items: { size: string; path: string }[] = []
  const sizes = new Map<number, string>()
  const sized = (bytes: number) => sizes.get(bytes) ?? sizes.set(bytes, fileSize(bytes)).get(bytes)!
  const collect = (level: Map<string, Entry>, relativePath: string, depth: number) => {
    for (const name of [...level.keys()].sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue
      const entry = level.get(name)!
      const path = relativePath ? `${relativePath}/${name}` : name
      if (entry.children) {
        items.push({ size: sized(entry.size), path: `${path}/` })
        if (depth < 2) collect(entry.children, path, depth + 1)
      } else {
        items.push({ size: sized(entry.size), path })
      }
    }
  }
  collect(levelsOf(dir, contents), '', 1)
  const header = `Here're the files and directories up to 2 levels deep in ${shown}, excluding hidden items and node_modules:`
  const lines = [`${fileSize(DIRECTORY_BYTES)}\t${shown}`, ...items.map((item) => `${item.size}\t${shown}/${item.path}`)]
  return `${header}\n${lines.join('\n')}`
}
