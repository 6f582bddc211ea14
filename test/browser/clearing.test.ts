import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

const call = (id: string, path: string) => ({
  message: { role: 'assistant', content: null, toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path }) }] },
})
const result = (id: string, text: string) => ({
  message: { role: 'tool', content: null, toolResponses: [{ id, name: 'read_file', data: text }] },
})

describe.skipIf(!haveChromium)('cleared tool results in the inspector', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('shows a cleared result as the notice the model is given, the stored result on demand, and the pass that cleared it', async () => {
    const { token } = await newUser()
    const long = 'export const answer = 42\n'.repeat(200)
    await api(token, 'POST', '/v1/sessions/agent/events', {
      events: [
        { message: { role: 'user', content: 'Read both files.' } },
        call('c1', 'a.ts'),
        result('c1', long),
        call('c2', 'b.ts'),
        result('c2', 'export {}\n'),
      ],
    })
    await api(token, 'POST', '/v1/sessions/agent/compact', { strategy: { clearToolResults: { keep: 1, clearInputs: true } } })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /agent/ }).click()
    await page.locator('.timeline').waitFor()
    // The pass: a compaction that covered nothing and cleared one result.
    expect(await page.locator('.compaction summary').textContent()).toMatch(
      /Compaction #6: 0 events covered, 1 tool result and the arguments of 1 call cleared/,
    )
    // The cleared call's card: its arguments marked, its result the notice.
    const card = page.locator('.tool-card[data-call-id="c1"]')
    await card.locator('summary').click()
    expect(await card.locator('.badge.cleared').first().textContent()).toBe('cleared in the view')
    const notice = card.locator('.cleared-notice code')
    expect(await notice.textContent()).toMatch(
      /^\[tool result cleared: call c1 \(read_file\), [\d,]+ tokens — recall_history with \{"id": "c1"\} returns it\]$/,
    )
    expect(await card.locator('.tool-text').count()).toBe(0)
    // The stored result, whole, on demand.
    await card.getByRole('button', { name: 'Full result' }).click()
    expect(await card.locator('.tool-text').textContent()).toBe(long)
    // The newest call is kept whole.
    const kept = page.locator('.tool-card[data-call-id="c2"]')
    await kept.locator('summary').click()
    expect(await kept.locator('.cleared-notice').count()).toBe(0)
    expect(await kept.locator('.tool-text').textContent()).toBe('export {}\n')
    await screenshot(page, 'clearing')
    expectSelfContained(tab)
  })
})
