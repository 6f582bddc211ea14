/** One line of a diff: kept in both texts, only in the old one, or only in the new one. */
export type DiffLine = { kind: 'same' | 'removed' | 'added'; text: string }

/** Lines compared cell by cell at most: beyond, the diff is the old text removed and the new one added. */
const MAX_CELLS = 4_000_000

/**
 * The lines of `before` and `after` in order, each marked kept, removed or added: a longest
 * common subsequence of their lines (what a unified diff shows). Texts too long to compare
 * line by line (over {@link MAX_CELLS} pairs) come back as all removed, then all added.
 *
 * @example
 * lineDiff('a\nb', 'a\nc') // [same a, removed b, added c]
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const old = before === '' ? [] : before.split('\n')
  const now = after === '' ? [] : after.split('\n')
  const removed = (text: string): DiffLine => ({ kind: 'removed', text })
  const added = (text: string): DiffLine => ({ kind: 'added', text })
  if (old.length * now.length > MAX_CELLS) return [...old.map(removed), ...now.map(added)]
  const width = now.length + 1
  // common[i * width + j]: the longest common subsequence of old[i..] and now[j..].
  const common = new Uint32Array((old.length + 1) * width)
  for (let i = old.length - 1; i >= 0; i--)
    for (let j = now.length - 1; j >= 0; j--)
      common[i * width + j] =
        old[i] === now[j]
          ? common[(i + 1) * width + j + 1]! + 1
          : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!)
  const lines: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < old.length && j < now.length) {
    if (old[i] === now[j]) {
      lines.push({ kind: 'same', text: old[i]! })
      i++
      j++
    } else if (common[(i + 1) * width + j]! >= common[i * width + j + 1]!) lines.push(removed(old[i++]!))
    else lines.push(added(now[j++]!))
  }
  return [...lines, ...old.slice(i).map(removed), ...now.slice(j).map(added)]
}
