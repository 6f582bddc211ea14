import type { Problem } from '../../core'

/**
 * Whether JSON text holds a `\u` escape of a lone UTF-16 surrogate: the one way text that is
 * valid UTF-8 can carry one. Escaped backslashes are stepped over, so `"\\ud800"` (a backslash,
 * then letters) is not one.
 */
export function hasLoneSurrogateEscape(json: string): boolean {
  if (!json.includes('\\')) return false
  let high = -1 // where the last escape ended, when it was a high surrogate
  for (const match of json.matchAll(/\\(?:u([0-9a-fA-F]{4})|[^u])/g)) {
    const unit = match[1] === undefined ? -1 : Number.parseInt(match[1], 16)
    const isHigh = unit >= 0xd800 && unit <= 0xdbff
    const isLow = unit >= 0xdc00 && unit <= 0xdfff
    if (high >= 0 && !(isLow && match.index === high)) return true
    if (isLow && high < 0) return true
    high = isHigh ? match.index + match[0].length : -1
  }
  return high >= 0
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Where a parsed JSON value holds a string (or a key) with a lone surrogate: the first, as a
 * problem naming its path; null when there is none.
 *
 * @example
 * loneSurrogate({ events: [{ message: { content: '\ud800' } }] }) // { path: ['events', 0, 'message', 'content'], ... }
 */
export function loneSurrogate(value: unknown, path: (string | number)[] = []): Problem | null {
  if (typeof value === 'string') return LONE.test(value) ? { path, message: problemText(value) } : null
  if (typeof value !== 'object' || value === null) return null
  for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (typeof key === 'string' && LONE.test(key)) return { path: [...path, key], message: `its key ${problemText(key)}` }
    const found = loneSurrogate(item, [...path, key])
    if (found) return found
  }
  return null
}

const problemText = (text: string) => {
  const unit = LONE.exec(text)![0].charCodeAt(0).toString(16)
  return `holds a lone UTF-16 surrogate (\\u${unit}): text must be valid Unicode`
}

/**
 * Where newline-delimited JSON holds a lone surrogate: its first line that does (counted from 1)
 * with the problem, or null. Lines that are not JSON are left to the reader that parses them.
 */
export function loneSurrogateLine(text: string): { line: number; problem: Problem } | null {
  if (!hasLoneSurrogateEscape(text)) return null
  for (const [index, raw] of text.split('\n').entries()) {
    if (!hasLoneSurrogateEscape(raw)) continue
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch {
      continue
    }
    const problem = loneSurrogate(value)
    if (problem) return { line: index + 1, problem }
  }
  return null
}
