import { ServiceError } from '../contract/errors'

/** Where `text` occurs in `content`, overlapping occurrences included (`aa` occurs twice in `aaa`). */
function occurrences(content: string, text: string): number {
  let count = 0
  for (let at = content.indexOf(text); at >= 0; at = content.indexOf(text, at + 1)) count++
  return count
}

/**
 * A PATCH's replacement: `old` must occur exactly once in the file (else a 400 naming how often
 * it does), and is replaced by `new`.
 *
 * @example
 * replaceOnce('a cat', { old: 'cat', new: 'dog' }, '/memories/a.md') // 'a dog'
 */
export function replaceOnce(content: string, replace: { old: string; new: string }, path: string): string {
  if (replace.old === '') throw new ServiceError('invalid_request', 'replace.old: must not be empty')
  const count = occurrences(content, replace.old)
  if (count !== 1)
    throw new ServiceError(
      'invalid_request',
      `replace.old: occurs ${count} times in ${path}; it must occur exactly once (nothing was written)`,
    )
  return content.replace(replace.old, () => replace.new)
}

/**
 * A PATCH's insertion, as the memory tool's `insert` does it: the file's lines are its text split
 * at each newline; `text` (without one trailing newline) becomes a line after line `line`, 0
 * being the top. `line` beyond the last is a 400 naming the range.
 *
 * @example
 * insertAfter('a\nb', { line: 1, text: 'x' }, '/memories/a.md') // 'a\nx\nb'
 */
export function insertAfter(content: string, insert: { line: number; text: string }, path: string): string {
  const lines = content.split('\n')
  if (insert.line > lines.length)
    throw new ServiceError(
      'invalid_request',
      `insert.line: must be within [0, ${lines.length}] (${path} has ${lines.length} lines)`,
    )
  lines.splice(insert.line, 0, insert.text.replace(/\n$/, ''))
  return lines.join('\n')
}
