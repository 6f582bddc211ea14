import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'

const get = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`https://sessions.test${path}`, { headers }))

describe('GET /inspect', () => {
  it('serves the page and its files without a token, allowed to load only from the Worker itself', async () => {
    const page = await get('/inspect')
    expect(page.status).toBe(200)
    expect(page.headers.get('Content-Type')).toMatch(/^text\/html/)
    expect(page.headers.get('X-Request-Id')).toBeTruthy()
    const csp = page.headers.get('Content-Security-Policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    const html = await page.text()
    expect(html).toContain('<script type="module" src="/inspect/app.js">')
    // Nothing the page names is on another origin.
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((url) => !url!.startsWith('/inspect/'))).toEqual(
      [],
    )
    const script = await get('/inspect/app.js')
    expect(script.status).toBe(200)
    expect(script.headers.get('Content-Type')).toMatch(/javascript/)
    // No URL to fetch from: bar the XML namespaces, the scheme marked puts before a bare "www."
    // link, and the address in its error message.
    const urls = [...(await script.text()).matchAll(/https?:\/\/[^\s"'`]*/g)].map((m) => m[0])
    expect(
      urls.filter((url) => !/^(http:\/\/www\.w3\.org\/|http:\/\/$|https:\/\/github\.com\/markedjs\/marked\.$)/.test(url)),
    ).toEqual([])
    expect((await get('/inspect/app.css')).headers.get('Content-Type')).toMatch(/^text\/css/)
  })

  it('answers revalidation with 304, and an unknown file with the contract’s 404', async () => {
    const etag = (await get('/inspect')).headers.get('ETag')!
    expect((await get('/inspect', { 'If-None-Match': etag })).status).toBe(304)
    const missing = await get('/inspect/nope.js')
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } })
  })
})
