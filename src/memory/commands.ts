import { directoryListing, numbered } from './listing'
import { isInside, MEMORY_ROOT, toolPath } from './paths'
import { MEMORY_FILE_BYTES, MemoryRefused, type MemoryTree } from './tree'

/** A memory command's result as the model reads it: the handler's text, and whether it is an error (`Error: …`). */
export interface MemoryAnswer {
  text: string
  error: boolean
}

/** A command the handler would refuse: its message (the answer is `Error: <message>`). */
class Refusal extends Error {}

function refuse(message: string): never {
  throw new Refusal(message)
}

/** Fields of a command, as the model sent them (anything JSON). */
type Command = Record<string, unknown>

/** A string field, or the refusal naming it (the handler would fail on anything else, in its own words). */
function text(command: Command, field: string): string {
  const value = command[field]
  return typeof value === 'string' ? value : refuse(`${field} must be a string`)
}

/**
 * A path field resolved as the handler resolves it (see `toolPath`), refused as it refuses one:
 * missing or not text (what `startsWith` on it would throw), outside `/memories`, or under a file.
 */
function resolved(command: Command, field: string, tree: MemoryTree): string {
  const raw = command[field]
  if (raw === undefined || raw === null) refuse(`Cannot read properties of ${raw} (reading 'startsWith')`)
  if (typeof raw !== 'string') refuse('memoryPath.startsWith is not a function')
  const found = toolPath(raw as string)
  if ('error' in found) return refuse(found.error)
  // The handler resolves the path on disk: a file on its way is a directory that is not one.
  if (tree.fileAbove(found.path)) refuse(`ENOTDIR: not a directory, realpath '${found.path}'`)
  return found.path
}

/** A change the store refused, in the words of this tool (the handler has no such limits). */
function refusalText(refused: MemoryRefused, shown: string): string {
  switch (refused.refusal) {
    case 'too_large':
      return `File ${shown} would be ${refused.amount} bytes: a memory file holds at most ${MEMORY_FILE_BYTES} bytes (100 KiB)`
    case 'too_many':
      return `The memory directory holds ${refused.amount} files, the most it may: delete one before creating another`
    case 'is_directory':
      return `The path ${shown} is not a file.`
    case 'file_above':
      return `ENOTDIR: not a directory, realpath '${refused.path}'`
  }
}

function view(command: Command, tree: MemoryTree): string {
  const path = resolved(command, 'path', tree)
  const shown = command.path as string
  const kind = tree.kind(path)
  if (kind === 'none') return refuse(`The path ${shown} does not exist. Please provide a valid path.`)
  if (kind === 'dir') {
    return directoryListing(shown, path, { files: tree.table.sizes(`${path}/`), dirs: tree.table.dirsInside(path) })
  }
  const lines = tree.read(path)!.content.split('\n')
  let shownLines = lines
  let first = 1
  // The handler's arithmetic, kept as it is for any JSON a model sends.
  const range = command.view_range as unknown as [number, number] | undefined
  if (range && range.length === 2) {
    const start = Math.max(1, range[0]) - 1
    const end = range[1] === -1 ? lines.length : range[1]
    shownLines = lines.slice(start, end)
    first = start + 1
  }
  return `Here's the content of ${shown} with line numbers:\n${numbered(shownLines, first)}`
}

function create(command: Command, tree: MemoryTree, now: string): string {
  const path = resolved(command, 'path', tree)
  const shown = command.path as string
  const content = text(command, 'file_text')
  if (tree.kind(path) !== 'none') refuse(`File ${shown} already exists`)
  tree.write(path, content, now)
  return `File created successfully at: ${shown}`
}

/** A file's content for an edit, or the handler's refusal (no such path; a directory). */
function fileToEdit(command: Command, tree: MemoryTree): { path: string; shown: string; content: string } {
  const path = resolved(command, 'path', tree)
  const shown = command.path as string
  const kind = tree.kind(path)
  if (kind === 'none') refuse(`The path ${shown} does not exist. Please provide a valid path.`)
  if (kind === 'dir') refuse(`The path ${shown} is not a file.`)
  return { path, shown, content: tree.read(path)!.content }
}

function strReplace(command: Command, tree: MemoryTree, now: string): string {
  const { path, shown, content } = fileToEdit(command, tree)
  const oldText = text(command, 'old_str')
  const newText = text(command, 'new_str')
  // As the handler counts: the lines that hold the text (so text spanning lines is never found).
  const matching = content.split('\n').flatMap((line, i) => (line.includes(oldText) ? [i + 1] : []))
  if (matching.length === 0) refuse(`No replacement was performed, old_str \`${oldText}\` did not appear verbatim in ${shown}.`)
  if (matching.length > 1)
    refuse(
      `No replacement was performed. Multiple occurrences of old_str \`${oldText}\` in lines: ${matching.join(', ')}. Please ensure it is unique`,
    )
  const edited = content.replace(oldText, () => newText)
  tree.write(path, edited, now)
  const lines = edited.split('\n')
  const changed = matching[0]! - 1
  const start = Math.max(0, changed - 2)
  const end = Math.min(lines.length, changed + 3)
  return `The memory file has been edited. Here is the snippet showing the change (with line numbers):\n${numbered(lines.slice(start, end), start + 1)}`
}

function insert(command: Command, tree: MemoryTree, now: string): string {
  const { path, shown, content } = fileToEdit(command, tree)
  const inserted = text(command, 'insert_text')
  const lines = content.split('\n')
  // The handler's comparisons and splice, kept as they are for any JSON a model sends.
  const line = command.insert_line as number
  if (line < 0 || line > lines.length)
    refuse(`Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`)
  lines.splice(line, 0, inserted.replace(/\n$/, ''))
  tree.write(path, lines.join('\n'), now)
  return `The file ${shown} has been edited.`
}

function remove(command: Command, tree: MemoryTree, now: string): string {
  const path = resolved(command, 'path', tree)
  const shown = command.path as string
  if (path === MEMORY_ROOT) refuse('Cannot delete the /memories directory itself')
  if (tree.kind(path) === 'none') refuse(`The path ${shown} does not exist`)
  tree.remove(path, now)
  return `Successfully deleted ${shown}`
}

function rename(command: Command, tree: MemoryTree, now: string): string {
  const from = resolved(command, 'old_path', tree)
  const to = resolved(command, 'new_path', tree)
  const [fromShown, toShown] = [command.old_path as string, command.new_path as string]
  if (from === MEMORY_ROOT) refuse('Cannot rename the /memories directory itself')
  if (tree.kind(to) !== 'none') refuse(`The destination ${toShown} already exists`)
  // The handler makes the destination's directories before it renames: they stay if the rename fails.
  tree.makeParents(to)
  if (tree.kind(from) === 'none') refuse(`The path ${fromShown} does not exist`)
  if (isInside(to, from)) refuse(`EINVAL: invalid argument, rename '${from}' -> '${to}'`)
  tree.move(from, to, now)
  return `Successfully renamed ${fromShown} to ${toShown}`
}

const COMMANDS: Record<string, (command: Command, tree: MemoryTree, now: string) => string> = {
  view,
  create,
  str_replace: strReplace,
  insert,
  delete: remove,
  rename,
}

/**
 * One memory command run against a user's store, answered as the SDK's own handler
 * (`BetaLocalFilesystemMemoryTool`, through its tool runner) answers it: its result text, or
 * `Error: <its message>`. Where the handler has no words (the store's limits, a field of the
 * wrong type), the answer says it plainly in the same form. A refused command writes nothing,
 * except what the handler also leaves behind (a rename makes its destination's directories first).
 *
 * @example
 * runMemoryCommand({ command: 'view', path: '/memories' }, tree, now)
 * // { text: "Here're the files and directories up to 2 levels deep in /memories, …", error: false }
 */
export function runMemoryCommand(input: unknown, tree: MemoryTree, now: string): MemoryAnswer {
  const command = (typeof input === 'object' && input !== null ? input : {}) as Command
  const run = Object.hasOwn(COMMANDS, String(command.command)) ? COMMANDS[String(command.command)] : undefined
  try {
    if (!run) return refuse(`${String(command.command)} not implemented`)
    return { text: run(command, tree, now), error: false }
  } catch (error) {
    if (error instanceof Refusal) return { text: `Error: ${error.message}`, error: true }
    if (error instanceof MemoryRefused) return { text: `Error: ${refusalText(error, String(command.path))}`, error: true }
    throw error
  }
}
