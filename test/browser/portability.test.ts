import { readFileSync } from 'node:fs'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, origin, screenshot, signIn } from './helpers'

describe.skipIf(!haveChromium)('the inspector: export and import', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('exports a session as jsonl and Markdown, and imports the jsonl into a new session holding the same events', async () => {
    const { token } = await newUser()
    await api(token, 'POST', '/v1/sessions/trip/events', {
      events: [
        { message: { role: 'system', content: 'You plan trips.' } },
        { message: { role: 'user', content: 'Plan two days in Rome.' } },
        { message: { role: 'assistant', content: 'Day one: the Forum. Day two: the Vatican.' } },
      ],
    })
    const tab = await newPage(browser)
    const { page } = tab
    await page.goto(`${origin()}/inspect`)
    await signIn(page, token)
    await page.locator('.sessions .id', { hasText: 'trip' }).click()
    const exported = async (name: string) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()])
      return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') }
    }
    const jsonl = await exported('Export jsonl')
    expect(jsonl.name).toBe('trip.jsonl')
    const lines = jsonl.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines[0]).toMatchObject({ type: 'session', format: 'durable-sessions/1', id: 'trip' })
    expect(lines.slice(1).map((event) => event.message.content)).toEqual([
      'You plan trips.',
      'Plan two days in Rome.',
      'Day one: the Forum. Day two: the Vatican.',
    ])
    const markdown = await exported('Export Markdown')
    expect(markdown.name).toBe('trip.md')
    expect(markdown.text).toMatch(/^# Session trip/)
    expect(markdown.text).toContain('Day one: the Forum.')

    await page.getByLabel('Import a file').setInputFiles({
      name: 'trip.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(jsonl.text),
    })
    await page.getByLabel('into session').fill('trip-copy')
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Imported 3 events into trip-copy.')
    await expect.poll(() => page.locator('.sessions .id').allTextContents()).toContain('trip-copy')
    await expect.poll(() => page.locator('#session-title').textContent()).toBe('trip-copy')
    const copy = await api<{ events: { id: string; message: { content: string } }[] }>(
      token,
      'GET',
      '/v1/sessions/trip-copy/events',
    )
    expect(copy.events.map((event) => event.id)).toEqual(lines.slice(1).map((event) => event.id))
    await screenshot(page, '30-imported')
    expectSelfContained(tab)
  })
})
