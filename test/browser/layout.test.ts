import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoSession, openSession } from './demo'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

/** A session of 450 short notes: its newest 200 make a log far taller than any screen. */
async function longSession(token: string, id = 'long') {
  const notes = Array.from({ length: 450 }, (_, i) => ({ message: { role: 'user', content: `note ${i + 1}` } }))
  await api(token, 'POST', `/v1/sessions/${id}/events`, { events: notes })
  return id
}

/**
 * Whether a person sees the element now: wholly inside the viewport, and what is drawn at its
 * centre is the element itself (or inside it), not something covering it.
 */
const inSight = (locator: Locator) =>
  locator.evaluate((element) => {
    const box = element.getBoundingClientRect()
    if (box.width === 0 || box.height === 0) return false
    if (box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth) return false
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
    return hit !== null && (hit === element || element.contains(hit))
  })

const scrollTo = async (page: Page, y: number | 'bottom') => {
  await page.evaluate((to) => window.scrollTo(0, to === 'bottom' ? document.documentElement.scrollHeight : to), y)
  const target = await page.evaluate(
    (to) =>
      to === 'bottom'
        ? document.documentElement.scrollHeight - innerHeight
        : Math.min(to, document.documentElement.scrollHeight - innerHeight),
    y,
  )
  await expect.poll(() => page.evaluate(() => Math.round(window.scrollY))).toBe(Math.round(target))
}

/** The WCAG contrast ratio of an element's text against the background drawn behind it. */
const contrastOf = (locator: Locator) =>
  locator.evaluate((element) => {
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number)
    let ground: Element | null = element
    let bg = [255, 255, 255]
    while (ground) {
      const [r = 0, g = 0, b = 0, a = 1] = rgb(getComputedStyle(ground).backgroundColor)
      if (a > 0) {
        bg = [r, g, b]
        break
      }
      ground = ground.parentElement
    }
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const c = [r, g, b].map((v) => {
        const s = v / 255
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!
    }
    const fg = luminance(rgb(getComputedStyle(element).color))
    const back = luminance(bg)
    return { fg, bg: back, ratio: (Math.max(fg, back) + 0.05) / (Math.min(fg, back) + 0.05) }
  })

/** Text of each kind the page shows, to check for contrast. */
const TEXTS = [
  ['the page title', 'header h1'],
  ['a session in the list', '.session-link .id'],
  ['message text', '.event.user:not(.covered) .md p'],
  ['a row’s details', '.event:not(.covered) .meta time'],
  ['a link in a message', '.md a'],
  ['inline code', '.md p code'],
  ['a code block', '.md pre.code code'],
  ['a table header', '.md th'],
  ['a tool call’s name', '.tool-card .tool-name'],
  ['a tool call’s status', '.tool-card .status'],
  ['a compaction', '.compaction summary'],
  ['a hint', '.budget .hint'],
  ['a primary button', '.turn button[type="submit"]'],
  ['a chip button', '.event:not(.covered) .meta button.chip'],
  ['a form field', '#turn-content'],
] as const

describe.skipIf(!haveChromium)('the inspector’s panes and themes', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('keeps the session list, the budget and the turn box in sight on a desktop while the log scrolls', async () => {
    const { token } = await newUser()
    const id = await longSession(token)
    const tab = await newPage(browser, { width: 1280, height: 800 })
    const { page } = tab
    await signIn(page, token)
    await openSession(page, id)
    await expect.poll(() => page.locator('.event').count()).toBe(200)
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(4 * 800)
    const panes = [
      page.getByRole('heading', { name: 'Sessions', exact: true }),
      page.locator('.budget-total'),
      page.getByLabel('Message'),
      page.getByRole('button', { name: 'Send', exact: true }),
    ]
    for (const y of [0, 2000, 'bottom'] as const) {
      await scrollTo(page, y)
      for (const pane of panes) expect(await inSight(pane)).toBe(true)
    }
    // Where the log is at its end, its last note is in sight too.
    expect(await inSight(page.locator('.event').last())).toBe(true)
    // And the turn box works from there.
    await page.getByLabel('Message').fill('Still here?')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect.poll(() => page.locator('.reply').textContent()).toBe('Echo: Still here?')
    expect(await inSight(page.locator('.reply'))).toBe(true)
    await page.screenshot({ path: '.artifacts/browser/layout-01-desktop-scrolled.png' })
    expectSelfContained(tab)
  })

  it('on a phone, puts the turn box, the budget and the search a tap away from anywhere in a long log, each pane keeping its place', async () => {
    const { token } = await newUser()
    const id = await longSession(token)
    const tab = await newPage(browser, { width: 390, height: 844 })
    const { page } = tab
    await signIn(page, token)
    await openSession(page, id)
    await expect.poll(() => page.locator('.event').count()).toBe(200)
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeGreaterThan(4000)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    // One pane at a time: the log, with the bar of panes in sight at the bottom of the screen.
    expect(await page.getByLabel('Message').isVisible()).toBe(false)
    const bar = page.getByRole('navigation', { name: 'Panes' })
    await scrollTo(page, 'bottom')
    const bottom = await page.evaluate(() => window.scrollY)
    expect(bottom).toBeGreaterThan(3000)
    expect(await inSight(bar)).toBe(true)
    expect(await inSight(page.locator('.event').last())).toBe(true) // not hidden under the bar
    // The turn box, one tap away: in sight without scrolling.
    await bar.getByRole('button', { name: 'Turn' }).click()
    await expect.poll(() => inSight(page.getByLabel('Message'))).toBe(true)
    expect(await bar.getByRole('button', { name: 'Turn' }).getAttribute('aria-pressed')).toBe('true')
    expect(await inSight(page.getByRole('button', { name: 'Send', exact: true }))).toBe(true)
    expect(await page.locator('.timeline').isVisible()).toBe(false)
    await screenshot(page, 'layout-02-phone-turn')
    // Back to the log: where it was left.
    await bar.getByRole('button', { name: 'Log' }).click()
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(bottom)
    expect(await inSight(page.locator('.event').last())).toBe(true)
    // The budget and the compaction preview, and the search, each a tap away.
    await bar.getByRole('button', { name: 'Budget' }).click()
    await expect.poll(() => inSight(page.locator('.budget-total'))).toBe(true)
    expect(await page.getByRole('button', { name: 'Preview' }).isVisible()).toBe(true)
    await bar.getByRole('button', { name: 'Search' }).click()
    await expect.poll(() => inSight(page.getByLabel('Words', { exact: true }))).toBe(true)
    // A hit shown in the log switches to it.
    await page.getByLabel('Words', { exact: true }).fill('note 300')
    await page.locator('.search').getByRole('button', { name: 'Search', exact: true }).click()
    await page.getByRole('button', { name: 'Show in log' }).first().click()
    await expect.poll(() => page.locator('.event.focused').count()).toBe(1)
    await expect.poll(() => inSight(page.locator('.event.focused'))).toBe(true)
    expect(await bar.getByRole('button', { name: 'Log' }).getAttribute('aria-pressed')).toBe('true')
    // A turn sent from the phone.
    await bar.getByRole('button', { name: 'Turn' }).click()
    await page.getByLabel('Message').fill('Hello from a phone')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    await expect.poll(() => page.locator('.reply').textContent()).toBe('Echo: Hello from a phone')
    expect(await inSight(page.locator('.reply'))).toBe(true)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expectSelfContained(tab)
  })

  for (const scheme of ['dark', 'light'] as const)
    it(`follows prefers-color-scheme: ${scheme}, every kind of text readable (WCAG AA contrast)`, async () => {
      const { token } = await newUser()
      const id = await demoSession(token)
      const tab = await newPage(browser, { width: 1280, height: 900 }, { colorScheme: scheme })
      const { page } = tab
      await signIn(page, token)
      await openSession(page, id)
      await page.locator('.tool-card summary').click()
      await page.locator('.tool-card .tool-body').waitFor()
      const ground = await contrastOf(page.locator('body'))
      if (scheme === 'dark') {
        expect(ground.bg).toBeLessThan(0.05) // a dark ground
        expect(ground.fg).toBeGreaterThan(0.6) // light text
      } else {
        expect(ground.bg).toBeGreaterThan(0.8)
        expect(ground.fg).toBeLessThan(0.05)
      }
      for (const [what, selector] of TEXTS) {
        const { ratio } = await contrastOf(page.locator(selector).first())
        expect({ what, readable: ratio >= 4.5 }).toEqual({ what, readable: true })
      }
      await screenshot(page, `layout-03-${scheme}`)
      expectSelfContained(tab)
    })
})
