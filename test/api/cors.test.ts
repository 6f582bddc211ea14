/** Browsers on other origins (CORS_ORIGINS), and request headers never echoed when refused. */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { app } from '../../src/http/app'
import { call, newSessionId, tokenFor } from '../helpers'

const WEB_APP = 'https://chat.example.com'

/** A request through the real app, with the deployment's variables given here (CORS is read by the Worker). */
async function request(path: string, init: RequestInit, vars: Partial<Env>) {
  return app.request(path, init, { ...env, ...vars })
}
const preflight = (origin: string, headers = 'authorization, content-type') =>
  ({
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': headers },
  }) as const
const corsHeadersOf = (response: Response) => [...response.headers.keys()].filter((name) => name.startsWith('access-control-'))

describe('CORS_ORIGINS', () => {
  const allowed = { CORS_ORIGINS: `${WEB_APP}, http://localhost:5173/` }

  it('answers an allowed origin’s preflight 204 without a token: its origin, the route’s methods, the headers the doors use', async () => {
    const response = await request(
      '/v1/sessions/s1/events',
      preflight(WEB_APP, 'authorization, content-type, idempotency-key, x-stainless-os, x-evil'),
      allowed,
    )
    expect(response.status).toBe(204)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(WEB_APP)
    expect(response.headers.get('Access-Control-Allow-Methods')!.split(', ').sort()).toEqual(['GET', 'POST'])
    const headers = response.headers.get('Access-Control-Allow-Headers')!.split(', ')
    for (const name of [
      'authorization',
      'content-type',
      'x-session-id',
      'idempotency-key',
      'x-api-key',
      'anthropic-version',
      'x-stainless-os',
    ])
      expect(headers).toContain(name)
    expect(headers).not.toContain('x-evil')
    expect(response.headers.get('Access-Control-Allow-Credentials')).toBeNull()
    // The chat-completions door, and the other origin of the list (written with a trailing slash).
    const door = await request('/v1/chat/completions', preflight('http://localhost:5173'), allowed)
    expect(door.status).toBe(204)
    expect(door.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:5173')
    expect(door.headers.get('Access-Control-Allow-Methods')).toBe('POST')
  })

  it('gives every answer to an allowed origin its origin and the headers it may read, errors included', async () => {
    const token = await tokenFor('cors-user')
    const id = newSessionId()
    const created = await request(
      '/v1/sessions',
      {
        method: 'POST',
        headers: { Origin: WEB_APP, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ id }),
      },
      allowed,
    )
    expect(created.status).toBe(201)
    expect(created.headers.get('Access-Control-Allow-Origin')).toBe(WEB_APP)
    const exposed = created.headers.get('Access-Control-Expose-Headers')!.split(', ')
    for (const name of [
      'X-Request-Id',
      'X-Session-Id',
      'X-Rewound',
      'request-id',
      'Retry-After',
      'x-should-retry',
      'X-RateLimit-Limit',
      'X-RateLimit-Scope',
    ])
      expect(exposed).toContain(name)
    expect(created.headers.get('Vary')).toContain('Origin')
    const unauthorized = await request(`/v1/sessions/${id}`, { headers: { Origin: WEB_APP } }, allowed)
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('Access-Control-Allow-Origin')).toBe(WEB_APP)
  })

  it('gives another origin no CORS header at all, its preflight a bare 204; `*` admits any origin', async () => {
    const other = await request('/v1/sessions', preflight('https://evil.example'), allowed)
    expect(other.status).toBe(204)
    expect(corsHeadersOf(other)).toEqual([])
    const token = await tokenFor('cors-user')
    const get = await request(
      '/v1/sessions',
      { headers: { Origin: 'https://evil.example', Authorization: `Bearer ${token}` } },
      allowed,
    )
    expect(get.status).toBe(200)
    expect(corsHeadersOf(get)).toEqual([])
    const any = await request('/v1/sessions', preflight('https://evil.example'), { CORS_ORIGINS: '*' })
    expect(any.headers.get('Access-Control-Allow-Origin')).toBe('https://evil.example')
  })

  it('with no CORS_ORIGINS sends no CORS header, and a preflight is an ordinary request (401)', async () => {
    const response = await call('OPTIONS', '/v1/sessions', {
      user: null,
      headers: { Origin: WEB_APP, 'Access-Control-Request-Method': 'GET' },
    })
    expect(response.status).toBe(401)
    expect(corsHeadersOf(new Response(null, { headers: response.headers }))).toEqual([])
  })

  it('an entry that is not an origin is a 503 naming CORS_ORIGINS', async () => {
    for (const value of ['chat.example.com', 'https://chat.example.com/app', 'ftp://']) {
      const response = await request('/v1/sessions', preflight(WEB_APP), { CORS_ORIGINS: value })
      expect(response.status, value).toBe(503)
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('CORS_ORIGINS')
    }
  })
})

describe('request headers', () => {
  it('an X-Session-Id the service refuses is never echoed back: too long, not ASCII', async () => {
    for (const id of ['s'.repeat(16 * 1024), 'café', 'a b']) {
      const response = await call('POST', '/v1/chat/completions', {
        body: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
        headers: { 'X-Session-Id': id },
      })
      expect(response.status).toBe(400)
      expect(response.body.error.message).toContain('x-session-id')
      expect(response.headers.get('X-Session-Id')).toBeNull()
    }
  })
})
