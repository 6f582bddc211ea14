/** The most characters a model's title keeps (a session's title is at most 200). */
const TITLE_CHARS = 200

/**
 * A summary answer split from the title line the summary model was asked to end with
 * (`Title: …`, its last line that is not blank): the summary without it, and the title (quotes
 * and trailing punctuation dropped); null when there is none.
 *
 * @example
 * titleOf('- Goals: ship it\nTitle: "Shipping the beta."') // { summary: '- Goals: ship it', title: 'Shipping the beta' }
 */
export function titleOf(answer: string): { summary: string; title: string | null } {
  const lines = answer.trimEnd().split(/\r?\n/)
  const last = lines.at(-1) ?? ''
  const match = /^\s*(?:\*\*)?title(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*?)\s*$/i.exec(last)
  if (!match) return { summary: answer, title: null }
  const title = Array.from(match[1]!.replace(/^["'“”‘’*]+|["'“”‘’*.]+$/g, '').trim())
    .slice(0, TITLE_CHARS)
    .join('')
  return { summary: lines.slice(0, -1).join('\n'), title: title === '' ? null : title }
}
