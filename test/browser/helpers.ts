import { existsSync, mkdirSync } from 'node:fs'
import { sign } from 'hono/jwt'
import { type Browser, chromium, type Page } from 'playwright-core'
import { expect, inject } from 'vitest'

/** Debian's Chromium (`apt-get install chromium`), or the one CHROMIUM_PATH names. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const haveChromium = existsSync(chromiumPath)
if (!haveChromium)
  console.warn(`browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`)

/** Where the tests leave their screenshots (git-ignored). */
const SHOTS = '.artifacts/browser'

/** The served Worker's origin: every request the page makes must go there. */
export const origin = () => new URL(inject('apiBase')).origin

let users = 0
/** A user of its own per test, and a bearer token for them. */
export async function newUser() {
  const user = `web-${Date.now().toString(36)}-${++users}`
  const token = await sign({ sub: user, exp: Math.floor(Date.now() / 1000) + 3600 }, inject('jwtSecret'), 'HS256')
  return { user, token }
}

/** Calls the API as a user (to seed a session, or to check what the page did). */
export async function api<T = unknown>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${origin()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()) as T
}

export const launch = (): Promise<Browser> => chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] })

/** What a test's page is opened with besides its size: a colour scheme, permissions (the clipboard's). */
export interface PageOptions {
  colorScheme?: 'light' | 'dark'
  permissions?: string[]
}

/**
 * A fresh page (its own context: its own sessionStorage) that records every request it makes and
 * every script error, and every Content-Security-Policy violation, for the checks of
 * {@link expectSelfContained}.
 */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 900 }, options: PageOptions = {}) {
  const context = await browser.newContext({ viewport, colorScheme: options.colorScheme ?? 'light' })
  if (options.permissions) await context.grantPermissions(options.permissions, { origin: origin() })
  const page = await context.newPage()
  const requests: string[] = []
  const errors: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  page.on('pageerror', (error) => errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) errors.push(message.text())
  })
  return { page, requests, errors }
}

/** The page loaded nothing from anywhere but the Worker (at `at`), no script failed and the page's CSP refused nothing. */
export function expectSelfContained({ requests, errors }: { requests: string[]; errors: string[] }, at = origin()) {
  expect(requests.length).toBeGreaterThan(0)
  // A blob: URL of the page's own origin holds bytes it read from the Worker (an image's).
  expect(requests.filter((url) => !url.startsWith(`${at}/`) && !url.startsWith(`blob:${at}/`))).toEqual([])
  expect(errors).toEqual([])
}

/** Opens the inspector and signs in with the token, as a person would: type it, press Enter. */
export async function signIn(page: Page, token: string, at = origin()) {
  await page.goto(`${at}/inspect`)
  await page.getByLabel('Bearer token').fill(token)
  await page.getByLabel('Bearer token').press('Enter')
  await page.getByRole('heading', { name: 'Sessions', exact: true }).waitFor()
}

/** Saves a screenshot of the page as it is now. */
export async function screenshot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true })
}
