import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

const turn = (i: number) => [
  { message: { role: 'user', content: `Step ${i}?` } },
  { message: { role: 'assistant', content: `Step ${i} done.` } },
]
const release = (tag: string) => fetch(`${inject('upstreamUrl')}/__release?tag=${tag}`, { method: 'POST' })

describe.skipIf(!haveChromium)('the summary prepared ahead, and the provider’s cache, in the inspector', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('shows a preparation while it runs, then what the prepared summary covers, and the cache’s hit rate; stale once a pass took it', async () => {
    const { token } = await newUser()
    const tag = `prep${Date.now().toString(36)}`
    const policy = {
      trigger: { turnCount: 1000 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } },
      prepare: { at: 0.0001 },
    }
    await api(token, 'POST', '/v1/sessions', { id: 'prepared', policy })
    await api(token, 'POST', '/v1/sessions/prepared/events', { events: [1, 2].flatMap(turn) })
    // The fake reports 100 prompt tokens, 60 of them read from its cache.
    await api(token, 'POST', '/v1/sessions/prepared/turns', { content: 'And step 3?', model: 'cached-60' })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /prepared/ }).click()
    await expect.poll(() => page.locator('.preparing').textContent()).toBe('Preparing a summary in the background…')
    expect(await page.locator('.cache').textContent()).toBe(
      'Provider cache: 60% of 100 prompt tokens read from the cache over the last 1 call.',
    )
    // The page reads the session again each second while it prepares: what it prepared shows by itself.
    await expect
      .poll(
        async () => {
          await release(tag)
          return page.locator('p.prepared').count()
        },
        { timeout: 10_000 },
      )
      .toBe(1)
    await expect.poll(() => page.locator('.preparing').count(), { timeout: 10_000 }).toBe(0)
    // Three turns, the newest kept: a pass now covers #1–#4; with the next message, all three turns (#1–#6).
    expect(await page.locator('p.prepared').getAttribute('data-state')).toBe('ready')
    expect(await page.locator('p.prepared').textContent()).toMatch(
      /^Summary prepared: it covers events #1–#6 \(6 events, [\d,]+ tokens?, .+\)\. A pass covering them answers without waiting for the summary model\.$/,
    )
    await screenshot(page, 'prepared')
    // A pass takes the one of what it covers now (#1–#4); read again, the page shows the other out of date.
    await api(token, 'POST', '/v1/sessions/prepared/compact', {})
    await page.reload()
    await page.getByRole('button', { name: /prepared/ }).click()
    await expect.poll(() => page.locator('p.prepared').getAttribute('data-state')).toBe('stale')
    expect(await page.locator('.compaction .badge.prepared').textContent()).toBe('prepared summary')
    expect(await page.locator('p.prepared').textContent()).toMatch(
      /^Prepared summary out of date: .+the next turn prepares another\.$/,
    )
    expectSelfContained(tab)
  })
})
