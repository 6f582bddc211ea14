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

type Entry = { name: string; size: number; children: Map<string, Entry> | null }

/** The tree of a directory's contents, by name (`children` null for a file). */
function treeOf(dir: string, contents: DirectoryContents): Map<string, Entry> {
  const root = new Map<string, Entry>()
  const at = (segments: string[]): Map<string, Entry> => {
    let level = root
    for (const name of segments) {
      let entry = level.get(name)
      if (!entry) {
        entry = { name, size: DIRECTORY_BYTES, children: new Map() }
        level.set(name, entry)
      }
      level = entry.children!
    }
    return level
  }
  const relative = (path: string) => path.slice(dir.length + 1).split('/')
  for (const path of contents.dirs) at(relative(path))
  for (const file of contents.files) {
    const segments = relative(file.path)
    const name = segments.pop()!
    at(segments).set(name, { name, size: file.size, children: null })
  }
  return root
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
  const collect = (level: Map<string, Entry>, relativePath: string, depth: number) => {
    for (const name of [...level.keys()].sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue
      const entry = level.get(name)!
      const path = relativePath ? `${relativePath}/${name}` : name
      if (entry.children) {
        items.push({ size: fileSize(entry.size), path: `${path}/` })
        if (depth < 2) collect(entry.children, path, depth + 1)
      } else {
        items.push({ size: fileSize(entry.size), path })
      }
    }
  }
  collect(treeOf(dir, contents), '', 1)
  const header = `Here're the files and directories up to 2 levels deep in ${shown}, excluding hidden items and node_modules:`
  const lines = [`${fileSize(DIRECTORY_BYTES)}\t${shown}`, ...items.map((item) => `${item.size}\t${shown}/${item.path}`)]
  return `${header}\n${lines.join('\n')}`
}
