import { readFile } from 'node:fs/promises'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { pdf, png } from '../../src/core/media/fixtures'
import { api, expectSelfContained, haveChromium, launch, newPage, newUser, screenshot, signIn } from './helpers'

const PICTURE = png(64, 48)
const REPORT = pdf(2)

describe.skipIf(!haveChromium)('images and documents in the inspector', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launch()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('shows an image as a thumbnail read with the token, full size on click; a document as a chip that downloads its bytes', async () => {
    const { token } = await newUser()
    await api(token, 'POST', '/v1/sessions/screenshots/events', {
      events: [
        {
          message: {
            role: 'user',
            content: [
              { type: 'text', text: 'What is wrong in this screenshot?' },
              { type: 'image', mediaType: 'image/png', data: encodeBase64(PICTURE) },
              { type: 'document', mediaType: 'application/pdf', title: 'Bug report', data: encodeBase64(REPORT) },
            ],
          },
        },
        { message: { role: 'assistant', content: null, toolCalls: [{ id: 'shot', name: 'screenshot', arguments: '{}' }] } },
        {
          message: {
            role: 'tool',
            content: null,
            toolResponses: [
              {
                id: 'shot',
                name: 'screenshot',
                data: [
                  { type: 'text', text: 'Captured' },
                  { type: 'image', mediaType: 'image/png', data: encodeBase64(PICTURE) },
                ],
              },
            ],
          },
        },
        { message: { role: 'user', content: [{ type: 'image', url: 'https://example.com/elsewhere.png' }] } },
      ],
    })
    const tab = await newPage(browser)
    const { page } = tab
    await signIn(page, token)
    await page.getByRole('button', { name: /screenshots/ }).click()
    const first = page.locator('.event[data-seq="1"]')
    // The text, then the image as a thumbnail of the stored bytes (no placeholder in the text).
    await first.locator('.md').waitFor()
    expect(await first.locator('.md').textContent()).toBe('What is wrong in this screenshot?')
    const thumbnail = first.locator('button.thumbnail img')
    await thumbnail.waitFor()
    expect(await thumbnail.getAttribute('src')).toMatch(/^blob:/)
    expect(await thumbnail.getAttribute('alt')).toMatch(/^\[image: image\/png, 64×48, /)
    expect(await thumbnail.evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight])).toEqual([
      true,
      64,
      48,
    ])
    // Full size on click; closed by its button, or by Escape.
    await first.locator('button.thumbnail').click()
    const dialog = first.locator('dialog.full-image')
    await dialog.waitFor()
    expect(await dialog.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(64)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await first.locator('button.thumbnail').click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    // The document: a chip with its title, type, pages and size; Download saves its bytes.
    const chip = first.locator('.doc-chip')
    expect(await chip.locator('.doc-title').textContent()).toBe('Bug report')
    expect(await chip.locator('.hint').textContent()).toBe(`application/pdf, 2 pages, ${REPORT.byteLength} B`)
    const [download] = await Promise.all([page.waitForEvent('download'), chip.getByRole('button', { name: 'Download' }).click()])
    expect(download.suggestedFilename()).toBe('Bug report.pdf')
    expect(new Uint8Array(await readFile((await download.path())!))).toEqual(REPORT)
    // The tool's screenshot inside its call's card, beside the result's text.
    const card = page.locator('.tool-card[data-call-id="shot"]')
    await card.locator('summary').click()
    await card.locator('.tool-text').waitFor()
    expect(await card.locator('.tool-text').textContent()).toBe('Captured')
    await card.locator('button.thumbnail img[src^="blob:"]').waitFor()
    // An image known by its URL is a link, never loaded by the page.
    const link = page.locator('.event[data-seq="4"] a.media-link')
    expect(await link.getAttribute('href')).toBe('https://example.com/elsewhere.png')
    await screenshot(page, 'media')
    // The bytes came from the session's blob route, with the token; nothing from anywhere else.
    expect(tab.requests.filter((url) => url.includes('/blobs/sha256:'))).toHaveLength(2)
    expectSelfContained(tab)
  })
})
