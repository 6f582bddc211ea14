import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

/** A user with a memory file in three versions (written, edited, rewritten) and a second file. */
async function userWithMemory() {
  const { token } = await newUser()
  await api(token, 'PUT', '/v1/memories/notes/prefs.md', { content: 'tea\nno sugar\n' })
  await api(token, 'PATCH', '/v1/memories/notes/prefs.md', { replace: { old: 'no sugar', new: 'honey' } })
  await api(token, 'PUT', '/v1/memories/notes/prefs.md', { content: 'tea\nhoney\nbiscuits\n' })
  await api(token, 'PUT', '/v1/memories/todo.md', { content: 'call Bob' })
  return token
}

describe.skipIf(!haveChromium)('the inspector: the Memory pane', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('lists the caller’s memory files, a file’s versions, and the lines changed between two versions', async () => {
    const token = await userWithMemory()
    // Someone else's memory is never in the list.
    const other = await newUser()
    await api(other.token, 'PUT', '/v1/memories/theirs.md', { content: 'not yours' })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.locator('header').getByRole('button', { name: 'Memory' }).click()
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor()
    await expect
      .poll(() => page.locator('.memory-files .id').allTextContents())
      .toEqual(['/memories/notes/prefs.md', '/memories/todo.md'])
    await page.locator('.memory-files .id', { hasText: 'prefs.md' }).click()
    const versions = page.getByRole('list', { name: 'Versions' }).getByRole('listitem')
    await expect.poll(() => versions.count()).toBe(3)
    expect(await versions.first().textContent()).toMatch(/^v1 · 13 bytes · /)
    // The newest against the one before: one line added.
    const changed = (kind: 'added' | 'removed') => page.locator(`.memory-diff .diff-${kind}`).allTextContents()
    await expect.poll(() => changed('added')).toEqual(['+ biscuits\n'])
    expect(await changed('removed')).toEqual([])
    // From the first version: the edit's line removed, two added.
    await page.getByLabel('Changes from').selectOption('1')
    await expect.poll(() => changed('removed')).toEqual(['- no sugar\n'])
    expect(await changed('added')).toEqual(['+ honey\n', '+ biscuits\n'])
    expect(await page.locator('.memory-diff .diff-same').allTextContents()).toEqual(['  tea\n', '  \n'])
    await screenshot(page, 'memory')
    expectSelfContained(tab)
  })

  it('lists live files only (a deleted one leaves the list), on a phone too; an empty memory is said plainly', async () => {
    const { token } = await newUser()
    await api(token, 'PUT', '/v1/memories/gone.md', { content: 'soon gone' })
    await api(token, 'PUT', '/v1/memories/kept.md', { content: 'kept' })
    await api(token, 'DELETE', '/v1/memories/gone.md')
    const tab = await newPage(browser, { width: 390, height: 844 })
    const { page } = tab
    await signIn(page, token)
    // On a phone the pane is one of the tab bar's.
    await page.locator('.tabbar').getByRole('button', { name: 'Memory' }).click()
    await expect.poll(() => page.locator('.memory-files .id').allTextContents()).toEqual(['/memories/kept.md'])
    expect(await page.locator('.sessions').isVisible()).toBe(false)
    const empty = await newUser()
    const second = await newPage(browser)
    await signIn(second.page, empty.token)
    await second.page.locator('header').getByRole('button', { name: 'Memory' }).click()
    await second.page.getByText('No memory yet').waitFor()
    expectSelfContained(tab)
    expectSelfContained(second)
  })
})
