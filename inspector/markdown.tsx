import { getDefaults, Lexer, type MarkedToken, type Token, type Tokens } from 'marked'
import type { ComponentChildren } from 'preact'
import { useMemo } from 'preact/hooks'

/**
 * Markdown as the page shows a message: GitHub's flavour (headings, lists, emphasis, links,
 * tables, code), rendered from marked's tokens straight to Preact elements. The text is
 * untrusted (a model's or a user's), so nothing in it ever becomes HTML: no `innerHTML`, raw HTML
 * shown as the text it is, links only to http(s) and mailto, opened in a new tab without an
 * opener or a referrer, and images never loaded (a link to them instead).
 */
export function Markdown({ text, class: className = '' }: { text: string; class?: string }) {
  const tokens = useMemo(() => lex(text), [text])
  return <div class={`md ${className}`.trim()}>{tokens === null ? <p class="plain">{text}</p> : blocks(tokens)}</div>
}

/** marked's defaults with soft line breaks kept: chat text is written line by line. A fresh copy each time (the lexer writes into it). */
function lex(text: string): Token[] | null {
  try {
    return Lexer.lex(text, { ...getDefaults(), gfm: true, breaks: true })
  } catch {
    return null // never expected; the text is then shown as it is
  }
}

/**
 * A link's address if the page may follow it: an absolute http(s) or mailto URL, normalized;
 * null for anything else (`javascript:`, `data:`, relative paths, malformed).
 *
 * @example
 * safeHref('https://example.com/a b') // 'https://example.com/a%20b'
 * safeHref('javascript:alert(1)') // null
 */
export function safeHref(href: string): string | null {
  try {
    const url = new URL(href)
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : null
  } catch {
    return null
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' }

/** The character references marked leaves in text (the HTML it would write decodes them; text nodes don't). */
function decode(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole
    const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}

const ALIGN = { left: 'align-left', center: 'align-center', right: 'align-right' } as const

function blocks(tokens: Token[]): ComponentChildren {
  return tokens.map((token, i) => block(token as MarkedToken, i))
}

function block(token: MarkedToken, key: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'def':
      return null
    case 'heading': {
      // Headings of the content sit under the page's own (h1 to h3): they start at h4.
      const Tag = `h${Math.min(6, token.depth + 3)}` as 'h4' | 'h5' | 'h6'
      return (
        <Tag key={key} class={`md-h${token.depth}`}>
          {inline(token.tokens)}
        </Tag>
      )
    }
    case 'paragraph':
      return <p key={key}>{inline(token.tokens)}</p>
    case 'text':
      // A tight list item's text: inline content, no paragraph.
      return <span key={key}>{token.tokens ? inline(token.tokens) : decode(token.text)}</span>
    case 'code':
      return <CodeBlock key={key} lang={token.lang?.split(/\s/)[0] ?? ''} code={token.text} />
    case 'blockquote':
      return <blockquote key={key}>{blocks(token.tokens)}</blockquote>
    case 'hr':
      return <hr key={key} />
    case 'list': {
      const items = token.items.map((item, i) => (
        <li key={i} class={item.task ? 'task' : undefined}>
          {blocks(item.tokens)}
        </li>
      ))
      return token.ordered ? (
        <ol key={key} start={token.start === '' || token.start === 1 ? undefined : token.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      )
    }
    case 'checkbox':
      return <input key={key} type="checkbox" checked={token.checked} disabled aria-label={token.checked ? 'done' : 'to do'} />
    case 'table':
      return <Table key={key} table={token} />
    case 'html':
      // Raw HTML in the text: shown as written, never parsed.
      return token.block ? (
        <p key={key} class="raw-html">
          {token.text.replace(/\n+$/, '')}
        </p>
      ) : (
        token.text
      )
    default:
      return inlineToken(token, key)
  }
}

function inline(tokens: Token[]): ComponentChildren {
  return tokens.map((token, i) => inlineToken(token as MarkedToken, i))
}

function inlineToken(token: MarkedToken, key: number): ComponentChildren {
  switch (token.type) {
    case 'text':
      return token.tokens ? inline(token.tokens) : decode(token.text)
    case 'escape':
      return token.text
    case 'strong':
      return <strong key={key}>{inline(token.tokens)}</strong>
    case 'em':
      return <em key={key}>{inline(token.tokens)}</em>
    case 'del':
      return <del key={key}>{inline(token.tokens)}</del>
    case 'codespan':
      return <code key={key}>{token.text}</code>
    case 'br':
      return <br key={key} />
    case 'link':
      return <Link key={key} href={token.href} title={token.title ?? null} label={inline(token.tokens)} />
    case 'image':
      return <Link key={key} href={token.href} title={token.title} label={`[image: ${decode(token.text) || 'no description'}]`} />
    case 'html':
      return token.text
    case 'checkbox':
      return block(token, key)
    default:
      // Anything else (a block where inline content was expected): its source text.
      return (token as { raw?: string }).raw ?? ''
  }
}

/** A link in untrusted text: followed only if {@link safeHref} allows it, in a new tab, no opener, no referrer. */
function Link({ href, title, label }: { href: string; title: string | null; label: ComponentChildren }) {
  const safe = safeHref(href)
  if (safe === null)
    return (
      <span class="unsafe-link" title={`Link not followed: ${href}`}>
        {label}
      </span>
    )
  return (
    <a href={safe} title={title ?? safe} target="_blank" rel="noopener noreferrer nofollow">
      {label}
    </a>
  )
}

function CodeBlock({ lang, code }: { lang: string; code: string }) {
  return (
    <figure class="code-block">
      {lang && <figcaption>{lang}</figcaption>}
      <pre class="code">
        <code>{code}</code>
      </pre>
    </figure>
  )
}

function Table({ table }: { table: Tokens.Table }) {
  const cell = (c: Tokens.TableCell) => (c.align ? ALIGN[c.align] : undefined)
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {table.header.map((c, i) => (
              <th key={i} class={cell(c)}>
                {inline(c.tokens)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, r) => (
            <tr key={r}>
              {row.map((c, i) => (
                <td key={i} class={cell(c)}>
                  {inline(c.tokens)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** A message's text: Markdown, or the raw text when asked. */
export function MessageText({ text, raw, class: className = '' }: { text: string; raw: boolean; class?: string }) {
  return raw ? (
    <pre class={`text raw ${className}`.trim()}>{text}</pre>
  ) : (
    <Markdown class={`text ${className}`.trim()} text={text} />
  )
}
