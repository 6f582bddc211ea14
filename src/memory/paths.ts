/**
 * Paths of the memory store. A file lives at `/memories/<segments>`: at most
 * {@link MAX_PATH_CHARS} characters, no empty segment, no `.` or `..`, no NUL. The REST routes
 * take a path only in that form; the memory tool reads one as the SDK's own handler does
 * (`BetaLocalFilesystemMemoryTool`: `/memories/a/../b.md` is `/memories/b.md`) and then holds it
 * to the same rules.
 */
import { MAX_PATH_CHARS, MEMORY_ROOT, pathProblem } from '../contract/memory-path'

export { MAX_PATH_CHARS, MEMORY_ROOT, pathProblem }

/** The directories a path is in, from the outermost under `/memories` to its parent (the root itself left out). */
export function parentsOf(path: string): string[] {
  const segments = path.slice(MEMORY_ROOT.length + 1).split('/')
  return segments.slice(0, -1).map((_, i) => `${MEMORY_ROOT}/${segments.slice(0, i + 1).join('/')}`)
}

/** Whether `path` is inside the directory `dir` (not `dir` itself). */
export const isInside = (path: string, dir: string): boolean => path.startsWith(`${dir}/`)

/** The path's last segment. */
export const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1)

/** A path inside `from` moved to the same place inside `to`. */
export const movedPath = (path: string, from: string, to: string): string => to + path.slice(from.length)

/** A path as the tool resolves it: the store's form, or the handler's error for it. */
export type ToolPath = { path: string } | { error: string }

/**
 * A path as the SDK's memory handler resolves it: it must start with `/memories` (so
 * `/memoriesfoo` is `/memories/foo`, as there); the rest is joined to the memory directory and
 * normalized (`//`, `.` and `..` resolved, a trailing `/` dropped); a result outside the
 * directory is refused with the handler's words. `memories` is the directory's own name, so
 * `/memories/../memories/a` is inside it, as it is on a disk.
 *
 * @example
 * toolPath('/memories/a/../b.md') // { path: '/memories/b.md' }
 * toolPath('/memories/../x') // { error: 'Path /memories/../x would escape /memories directory' }
 */
export function toolPath(raw: string): ToolPath {
  if (!raw.startsWith(MEMORY_ROOT)) return { error: `Path must start with /memories, got: ${raw}` }
  // The directory's place on the handler's disk is `<base>/memories`: above `<base>` is unknown land.
  const stack = ['memories']
  for (const segment of raw.slice(MEMORY_ROOT.length).replace(/^\//, '').split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment !== '..') stack.push(segment)
    else if (stack.pop() === undefined) return { error: `Path ${raw} would escape /memories directory` }
  }
  if (stack[0] !== 'memories') return { error: `Path ${raw} would escape /memories directory` }
  const path = `/${stack.join('/')}`
  if (path.length > MAX_PATH_CHARS) return { error: `Path ${raw} is longer than ${MAX_PATH_CHARS} characters` }
  if (path.includes('\0')) return { error: `Path ${raw} holds a NUL character` }
  return { path }
}
