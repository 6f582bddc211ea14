import { mkdirSync, statSync } from 'node:fs'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoSession, openSession } from './demo'
import { expectSelfContained, haveChromium, launch, newPage, newUser, signIn } from './helpers'

/**
 * The inspector's pictures in docs/guides/inspector.md. `INSPECTOR_SCREENSHOTS=1 npx vitest run --project
 * browser test/browser/screenshots.test.ts` writes them into docs/screenshots; otherwise into
 * .artifacts/browser/readme, checked all the same: each a small PNG.
 */
const publish = process.env.INSPECTOR_SCREENSHOTS === '1'
const OUT = publish ? 'docs/screenshots' : '.artifacts/browser/readme'
const MAX_BYTES = 200 * 1024
const DESKTOP = { width: 1200, height: 760 }
const PHONE = { width: 390, height: 844 }

async function save(target: Page | Locator, name: string) {
  mkdirSync(OUT, { recursive: true })
  const path = `${OUT}/${name}.png`
  await target.screenshot({ path, animations: 'disabled', caret: 'hide' })
  expect(statSync(path).size).toBeLessThan(MAX_BYTES)
  return path
}

/** The demo session opened, the turn with the tool call at the top of the screen. */
async function showDemo(page: Page, token: string, id: string) {
  await signIn(page, token)
  await openSession(page, id)
  const question = page.locator('.event.user').filter({ hasText: 'What will the weather be like?' })
  await question.evaluate((row) => row.scrollIntoView({ block: 'start' }))
  return page.locator('.tool-card')
}

describe.skipIf(!haveChromium)('screenshots of the inspector for its guide', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('on a desktop, light and dark; a tool card; an event’s JSON', async () => {
    const { token } = await newUser()
    const id = await demoSession(token)
    const light = await newPage(browser, DESKTOP, { colorScheme: 'light' })
    const card = await showDemo(light.page, token, id)
    await save(light.page, 'desktop-light')
    await card.locator('summary').click()
    await card.locator('.tool-body').waitFor()
    await save(card, 'tool-card')
    await card.locator('summary').click()
    await expect.poll(() => card.locator('.tool-body').count()).toBe(0)
    const call = light.page.locator('.event.assistant').filter({ has: card })
    await call.locator(':scope > .meta').getByRole('button', { name: 'JSON' }).click()
    await call.locator(':scope > .json-view').waitFor()
    await save(call, 'json-view')
    expectSelfContained(light)

    const dark = await newPage(browser, DESKTOP, { colorScheme: 'dark' })
    await showDemo(dark.page, token, id)
    await save(dark.page, 'desktop-dark')
    expectSelfContained(dark)
  })

  it('on a phone', async () => {
    const { token } = await newUser()
    const id = await demoSession(token)
    const phone = await newPage(browser, PHONE)
    const { page } = phone
    await signIn(page, token)
    await openSession(page, id)
    const plan = page.locator('.event.assistant').filter({ hasText: 'Lisbon offsite, May 14–16' })
    await plan.evaluate((row) => row.scrollIntoView({ block: 'start' }))
    await save(page, 'phone')
    expectSelfContained(phone)
  })
})
