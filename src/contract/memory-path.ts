/**
 * The contract's memory paths (round4 §5): a file lives at `/memories/<segments>`, at most
 * {@link MAX_PATH_CHARS} characters, no empty segment, no `.` or `..`, no NUL.
 */

/** The memory directory: every file is under it. */
export const MEMORY_ROOT = '/memories'

/** The longest path a file may have. */
export const MAX_PATH_CHARS = 256

/**
 * What is wrong with a path as the store takes it, or null: it names a file or directory under
 * `/memories` in its one written form.
 *
 * @example
 * pathProblem('/memories/notes/a.md') // null
 * pathProblem('/memories/a//b') // 'has an empty segment'
 */
export function pathProblem(path: string): string | null {
  if (path === MEMORY_ROOT) return 'names the /memories directory itself, not a file under it'
  if (!path.startsWith(`${MEMORY_ROOT}/`)) return 'must start with /memories/'
  if (path.length > MAX_PATH_CHARS) return `is ${path.length} characters long; at most ${MAX_PATH_CHARS}`
  if (path.includes('\0')) return 'holds a NUL character'
  for (const segment of path.slice(MEMORY_ROOT.length + 1).split('/')) {
    if (segment === '') return 'has an empty segment'
    if (segment === '.' || segment === '..') return `has a "${segment}" segment`
  }
  return null
}
