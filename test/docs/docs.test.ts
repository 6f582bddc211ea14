/**
 * The docs as a reader finds them: a short README, links that lead somewhere, and the guides the
 * docs promise. Plain Node: it reads the Markdown files of the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** Every Markdown file of a folder, recursively. */
const markdownIn = (folder: string): string[] =>
  readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) return markdownIn(path)
    return name.endsWith('.md') ? [path] : []
  })

/** The pages whose links are checked: the README, the benchmarks and every page under docs/. */
const PAGES = [
  join(ROOT, 'README.md'),
  join(ROOT, 'BENCHMARKS.md'),
  join(ROOT, 'bench/history.md'),
  ...markdownIn(join(ROOT, 'docs')),
]

/** The guides issue 46 asks for, one page per client and per capability. */
const GUIDES = [
  'openai',
  'ai-sdk',
  'anthropic-sdk',
  'claude-code',
  'codex',
  'agents-sdk',
  'browser-app',
  'images',
  'branches',
  'compaction',
  'portability',
  'events',
  'inspector',
  'configuration',
  'identity-providers',
  'deployment',
  'memory',
]

/** A page's text without its fenced code blocks, which hold no headings and no links (their lines kept, empty). */
const withoutFences = (text: string) =>
  text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, (block) => block.replace(/[^\n]/g, ''))
/** A page's text without its code, inline spans included. */
const prose = (text: string) => withoutFences(text).replace(/`[^`\n]*`/g, '')

/** The anchors of a page's headings, as GitHub makes them (lowercased, punctuation dropped, spaces to hyphens, repeats numbered). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of withoutFences(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const plain = heading!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** The relative links of a page (`[text](target)` and images), with the line each is on. */
function linksOf(text: string): { target: string; line: number }[] {
  const lines = prose(text).split('\n')
  return lines.flatMap((line, i) =>
    [...line.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
      .map((match) => ({ target: match[1]!, line: i + 1 }))
      .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target)),
  )
}

describe('the docs', () => {
  it('keep the README short: at most 250 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length
    expect(lines).toBeLessThanOrEqual(250)
  })

  it('have every guide the docs promise', () => {
    const missing = GUIDES.filter((guide) => !existsSync(join(ROOT, 'docs/guides', `${guide}.md`)))
    expect(missing).toEqual([])
  })

  it('link only to files and headings that exist', () => {
    const broken: string[] = []
    for (const page of PAGES) {
      const text = readFileSync(page, 'utf8')
      for (const { target, line } of linksOf(text)) {
        const [path = '', anchor] = target.split('#')
        const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path))
        const where = `${relative(ROOT, page)}:${line}: ${target}`
        if (!existsSync(file)) broken.push(`${where} (no such file)`)
        else if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${where} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })

  it('make anchors as GitHub does', () => {
    const anchors = anchorsOf(
      '# A title\n## What the session holds: `/context`\n## Events: webhooks, a live stream\n## A title\n',
    )
    expect([...anchors]).toEqual(['a-title', 'what-the-session-holds-context', 'events-webhooks-a-live-stream', 'a-title-1'])
  })

  it('describe every folder of src/, and each room of src/store, in architecture.md', () => {
    const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
    const folders = (under: string) =>
      readdirSync(join(ROOT, under), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${under}/${entry.name}/`)
    const missing = [...folders('src'), ...folders('src/store')].filter((folder) => !page.includes(`**\`${folder}\`**`))
    expect(missing).toEqual([])
  })
})
