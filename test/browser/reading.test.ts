import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

interface StoredEvent {
  id: string
  seq: number
  message?: { role: string; content: string | null }
}

/** Markdown a model might write, with untrusted HTML and links mixed in. */
const HOSTILE = [
  '# Heading one',
  'Some *emphasis*, **strong** and `inline <code>` text, ~~gone~~ &amp; done.',
  '',
  '- first',
  '- second',
  '  1. nested',
  '',
  '| Tool | Use |',
  '|:--|--:|',
  '| `grep` | search |',
  '',
  '```ts',
  'const x: number = 1 < 2 ? 3 : 4',
  '```',
  '',
  '[safe link](https://example.com/docs?a=1&b=2) and [evil](javascript:alert(1)) and [data](data:text/html,hi) and <https://auto.example.org>.',
  '',
  '<script>window.__pwned = 1</script>',
  '<img src="x" onerror="window.__pwned = 2">',
  '<iframe src="javascript:window.__pwned = 3"></iframe>',
  '',
  'Inline <b onmouseover="window.__pwned = 4">bold?</b> and ![tracker](https://tracker.example.net/pixel.png)',
].join('\n')

/**
 * A session with tool calls in every state: answered (JSON), answered with an error, never
 * answered (the conversation moved on) and pending (the newest turn waits for it).
 */
const TOOL_LOG = [
  { message: { role: 'user', content: 'Weather in Paris and Oslo?' } },
  {
    message: {
      role: 'assistant',
      content: 'Checking both.',
      toolCalls: [
        { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris","units":"metric"}' },
        { id: 'call_oslo', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      ],
    },
  },
  {
    message: {
      role: 'tool',
      content: null,
      toolResponses: [{ id: 'call_paris', name: 'get_weather', data: '{"temp":18,"sky":"sunny"}' }],
    },
  },
  {
    message: {
      role: 'tool',
      content: null,
      toolResponses: [{ id: 'call_oslo', name: 'get_weather', data: 'timeout after 30 s' }],
    },
    metadata: { toolErrors: ['call_oslo'] },
  },
  { message: { role: 'assistant', content: 'Paris: 18 °C and sunny. Oslo timed out.' } },
  { message: { role: 'user', content: 'And Rome?' } },
  { message: { role: 'assistant', content: null, toolCalls: [{ id: 'call_lost', name: 'lookup', arguments: '{"q":"Rome"}' }] } },
  { message: { role: 'user', content: 'Never mind, the weather in Rome then.' } },
  {
    message: { role: 'assistant', content: null, toolCalls: [{ id: 'call_rome', name: 'get_weather', arguments: 'city=Rome' }] },
  },
]

const fontOf = (locator: Locator) => locator.evaluate((element) => getComputedStyle(element).fontFamily)
const card = (page: Page, id: string) => page.locator(`.tool-card[data-call-id="${id}"]`)
const pretty = (value: unknown) => JSON.stringify(value, null, 2)

describe.skipIf(!haveChromium)('reading a session in the inspector', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('renders message text as Markdown, and none of its HTML: no script runs, no element is injected, links only to http(s)', async () => {
    const { token } = await newUser()
    await api(token, 'POST', '/v1/sessions/markdown/events', { events: [{ message: { role: 'assistant', content: HOSTILE } }] })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /markdown/ }).click()
    const row = page.locator('.event[data-seq="1"]')
    const body = row.locator('.md')
    await body.waitFor()
    // Headings, emphasis, lists, tables and code, as elements.
    expect(await body.locator('h4').textContent()).toBe('Heading one') // under the page's own h1–h3
    expect(await body.locator('em').textContent()).toBe('emphasis')
    expect(await body.locator('strong').textContent()).toBe('strong')
    expect(await body.locator('del').textContent()).toBe('gone')
    expect(await body.locator('p').first().textContent()).toContain('& done.')
    expect(await body.locator('ul > li').count()).toBe(2)
    expect(await body.locator('ul ol > li').textContent()).toBe('nested')
    expect(await body.locator('th').allTextContents()).toEqual(['Tool', 'Use'])
    expect(await body.locator('td').allTextContents()).toEqual(['grep', 'search'])
    expect(await body.locator('td').last().getAttribute('class')).toBe('align-right')
    expect(await body.locator('pre.code code').textContent()).toBe('const x: number = 1 < 2 ? 3 : 4')
    expect(await body.locator('p code').first().textContent()).toBe('inline <code>')
    // Links: only http(s), each opening a new tab with no opener and no referrer; the others plain text.
    const links = await body
      .locator('a')
      .evaluateAll((anchors) =>
        anchors.map((a) => ({ href: a.getAttribute('href'), target: a.getAttribute('target'), rel: a.getAttribute('rel') })),
      )
    expect(links.map((link) => link.href)).toEqual([
      'https://example.com/docs?a=1&b=2',
      'https://auto.example.org/',
      'https://tracker.example.net/pixel.png', // an image is a link to it, never loaded
    ])
    for (const link of links) {
      expect(link.target).toBe('_blank')
      expect(link.rel?.split(' ')).toEqual(expect.arrayContaining(['noopener', 'noreferrer']))
    }
    expect(await body.locator('.unsafe-link').allTextContents()).toEqual(['evil', 'data'])
    expect(await body.locator('a').last().textContent()).toBe('[image: tracker]')
    // The HTML in the text is shown as the text it is: no element of it in the page, nothing ran.
    expect(await page.locator('.timeline').locator('script, img, iframe, b, [onerror], [onmouseover]').count()).toBe(0)
    const text = await body.textContent()
    expect(text).toContain('<script>window.__pwned = 1</script>')
    expect(text).toContain('<img src="x" onerror="window.__pwned = 2">')
    expect(text).toContain('<b onmouseover="window.__pwned = 4">bold?</b>')
    await body.getByText('bold?').hover()
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    // The raw text on demand, exactly as stored; and back.
    const raw = row.getByRole('button', { name: 'Raw text' })
    await raw.click()
    expect(await raw.getAttribute('aria-pressed')).toBe('true')
    expect(await row.locator('pre.text.raw').textContent()).toBe(HOSTILE)
    expect(await row.locator('h4').count()).toBe(0)
    await screenshot(page, 'reading-01-raw')
    await raw.click()
    expect(await row.locator('h4').textContent()).toBe('Heading one')
    // Code in monospace, prose not.
    expect(await fontOf(body.locator('pre.code'))).toMatch(/monospace/)
    expect(await fontOf(body.locator('p code').first())).toMatch(/monospace/)
    expect(await fontOf(body.locator('p').first())).not.toMatch(/monospace/)
    await screenshot(page, 'reading-02-markdown')
    expectSelfContained(tab)
  })

  it('shows each tool call and its result as one foldable card: arguments and JSON results pretty-printed in monospace, or pending, or no result', async () => {
    const { token } = await newUser()
    await api(token, 'POST', '/v1/sessions/tools/events', { events: TOOL_LOG })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /tools/ }).click()
    await page.locator('.timeline').waitFor()
    // The tool events are inside their calls' cards, not rows of their own.
    await expect.poll(() => page.locator('.tool-card').count()).toBe(4)
    expect(await page.locator('.event.tool').count()).toBe(0)
    expect(await page.locator('.event').count()).toBe(7)
    const status = (id: string) => card(page, id).locator('summary .status').textContent()
    expect(await status('call_paris')).toBe('result')
    expect(await status('call_oslo')).toBe('error')
    expect(await status('call_lost')).toBe('no result')
    expect(await status('call_rome')).toBe('pending')
    // Folded: the name and the arguments in brief.
    const paris = card(page, 'call_paris')
    expect(await paris.locator('summary').textContent()).toContain('get_weather')
    expect(await paris.locator('summary .tool-brief').textContent()).toBe('{"city":"Paris","units":"metric"}')
    expect(await paris.locator('.tool-body').count()).toBe(0)
    // Unfolded from the keyboard: the arguments, then the result matched by the call's id.
    await paris.locator('summary').focus()
    await page.keyboard.press('Enter')
    await paris.locator('.tool-body').waitFor()
    expect(await paris.locator('.call-id').textContent()).toBe('call_paris')
    expect(await paris.locator('pre.tool-args').textContent()).toBe(pretty({ city: 'Paris', units: 'metric' }))
    const result = paris.locator('.tool-result')
    expect(await result.getAttribute('data-seq')).toBe('3')
    expect(await result.locator('pre.json').textContent()).toBe(pretty({ temp: 18, sky: 'sunny' }))
    for (const code of [paris.locator('pre.tool-args'), result.locator('pre.json'), paris.locator('summary .tool-name')])
      expect(await fontOf(code)).toMatch(/monospace/)
    // A result sent as an error, as written (not JSON); a call never answered; a call the turn waits for.
    const oslo = card(page, 'call_oslo')
    await oslo.locator('summary').click()
    expect(await oslo.locator('.tool-result .tool-text').textContent()).toBe('timeout after 30 s')
    expect(await oslo.locator('.tool-result .badge.failed').textContent()).toBe('sent as an error')
    const lost = card(page, 'call_lost')
    await lost.locator('summary').click()
    expect(await lost.locator('.tool-missing').textContent()).toMatch(/^No result/)
    const rome = card(page, 'call_rome')
    await rome.locator('summary').click()
    expect(await rome.locator('.tool-missing').textContent()).toMatch(/^Pending/)
    expect(await rome.locator('pre.tool-args').textContent()).toBe('city=Rome') // not JSON: as written
    await paris.scrollIntoViewIfNeeded()
    await screenshot(page, 'reading-03-tool-cards')
    // Folded again.
    await paris.locator('summary').click()
    await expect.poll(() => paris.locator('.tool-body').count()).toBe(0)
    expectSelfContained(tab)
  })

  it('shows any event’s stored JSON, and copies it or its id to the clipboard', async () => {
    const { token } = await newUser()
    await api(token, 'POST', '/v1/sessions/json/events', { events: TOOL_LOG.slice(0, 5) })
    const stored = (await api<{ events: StoredEvent[] }>(token, 'GET', '/v1/sessions/json/events')).events
    const tab = await newPage(browser, undefined, { permissions: ['clipboard-read', 'clipboard-write'] })
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /json/ }).click()
    const row = page.locator('.event[data-seq="2"]')
    const toggle = row.locator(':scope > .meta').getByRole('button', { name: 'JSON' })
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    const view = row.locator(':scope > .json-view')
    expect(JSON.parse((await view.locator('pre').textContent())!)).toEqual(stored[1])
    expect(await fontOf(view.locator('pre'))).toMatch(/monospace/)
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText())
    await view.getByRole('button', { name: 'Copy JSON' }).click()
    await expect.poll(clipboard).toBe(pretty(stored[1]))
    expect(JSON.parse(await clipboard())).toEqual(stored[1])
    expect(await view.getByRole('status').first().textContent()).toBe('JSON copied')
    await view.getByRole('button', { name: 'Copy id' }).click()
    await expect.poll(clipboard).toBe(stored[1]!.id)
    await screenshot(page, 'reading-04-json')
    // A tool result's event, from inside its card.
    const paris = card(page, 'call_paris')
    await paris.locator('summary').click()
    await paris.locator('.tool-result').getByRole('button', { name: 'JSON' }).click()
    const resultView = paris.locator('.tool-result .json-view')
    expect(JSON.parse((await resultView.locator('pre').textContent())!)).toEqual(stored[2])
    await resultView.getByRole('button', { name: 'Copy id' }).click()
    await expect.poll(clipboard).toBe(stored[2]!.id)
    // Hidden again.
    await toggle.click()
    expect(await row.locator(':scope > .json-view').count()).toBe(0)
    expectSelfContained(tab)
  })
})
