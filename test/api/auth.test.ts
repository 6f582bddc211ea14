import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { append, call, expectError, newSessionId, SECRET, tokenFor, user } from '../helpers'

const now = () => Math.floor(Date.now() / 1000)
const b64url = (value: unknown) => btoa(JSON.stringify(value)).replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_')
const withToken = (token: string) => call('GET', '/v1/sessions', { user: null, headers: { Authorization: `Bearer ${token}` } })

describe('bearer tokens', () => {
  it('accepts a valid HS256 token and uses sub as the user', async () => {
    const result = await withToken(await tokenFor('bob'))
    expect(result.status).toBe(200)
    const created = await call('POST', '/v1/sessions', {
      user: null,
      headers: { Authorization: `Bearer ${await tokenFor('bob')}` },
    })
    expect(created.body.userId).toBe('bob')
  })

  it('401 with WWW-Authenticate: Bearer when there is no token', async () => {
    const result = await call('GET', '/v1/sessions', { user: null })
    expectError(result, 401, 'unauthorized')
    expect(result.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="durable-sessions"$/)
    const basic = await call('GET', '/v1/sessions', { user: null, headers: { Authorization: 'Basic YTpi' } })
    expectError(basic, 401, 'unauthorized')
  })

  it.each([
    ['alg none', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'eve', exp: now() + 600 })}.`],
    ['another algorithm (HS512)', async () => sign({ sub: 'eve', exp: now() + 600 }, SECRET, 'HS512')],
    ['expired beyond the leeway', async () => tokenFor('eve', { exp: now() - 120 })],
    ['not valid yet beyond the leeway', async () => tokenFor('eve', { nbf: now() + 600 })],
    ['no exp', async () => sign({ sub: 'eve' }, SECRET, 'HS256')],
    ['wrong secret', async () => tokenFor('eve', {}, 'not-the-secret')],
    ['missing sub', async () => sign({ exp: now() + 600 }, SECRET, 'HS256')],
    ['empty sub', async () => tokenFor('', {})],
    ['non-string sub', async () => tokenFor('eve', { sub: 42 })],
    ['malformed', async () => 'not.a.jwt'],
    [
      'tampered payload',
      async () => {
        const [header, , signature] = (await tokenFor('eve')).split('.')
        return `${header}.${b64url({ sub: 'mallory', exp: now() + 600 })}.${signature}`
      },
    ],
  ])('401 invalid_token: %s', async (_name, make) => {
    const token = await make()
    const result = await withToken(token)
    expectError(result, 401, 'unauthorized')
    expect(result.headers.get('WWW-Authenticate')).toContain('error="invalid_token"')
    expect(result.text).not.toContain(token)
  })

  it('allows 60 seconds of clock skew on exp and nbf', async () => {
    expect((await withToken(await tokenFor('skew', { exp: now() - 30 }))).status).toBe(200)
    expect((await withToken(await tokenFor('skew', { nbf: now() + 30 }))).status).toBe(200)
  })

  it('serves the OpenAPI document without a token', async () => {
    const result = await call('GET', '/v1/openapi.json', { user: null })
    expect(result.status).toBe(200)
  })
})

describe('isolation between users', () => {
  it("another user's session is 404 exactly like an absent one, and the same id is theirs to use", async () => {
    const id = newSessionId('shared')
    await append(id, [user('alice private', 'a1')], 'alice')
    const asMallory = await call('GET', `/v1/sessions/${id}`, { user: 'mallory' })
    const absent = await call('GET', `/v1/sessions/${newSessionId('absent')}`, { user: 'mallory' })
    expectError(asMallory, 404, 'not_found')
    expect(asMallory.body).toEqual(absent.body)
    for (const [method, path] of [
      ['GET', `/v1/sessions/${id}/events`],
      ['GET', `/v1/sessions/${id}/view`],
      ['DELETE', `/v1/sessions/${id}`],
    ]) {
      expectError(await call(method!, path!, { user: 'mallory' }), 404, 'not_found')
    }
    expectError(await call('POST', `/v1/sessions/${id}/compact`, { user: 'mallory', body: {} }), 404, 'not_found')
    expectError(await call('PATCH', `/v1/sessions/${id}`, { user: 'mallory', body: { metadata: {} } }), 404, 'not_found')

    // Mallory's own session with the same id is separate; Alice's is untouched.
    await append(id, [user('mallory own', 'a1')], 'mallory')
    const alice = await call('GET', `/v1/sessions/${id}/events`, { user: 'alice' })
    expect(alice.body.events.map((e: { message: { content: string } }) => e.message.content)).toEqual(['alice private'])
    const mallory = await call('GET', `/v1/sessions/${id}/events`, { user: 'mallory' })
    expect(mallory.body.events.map((e: { message: { content: string } }) => e.message.content)).toEqual(['mallory own'])
    expect(
      (await call('GET', '/v1/sessions', { user: 'mallory' })).body.sessions.map((s: { userId: string }) => s.userId),
    ).toEqual(['mallory'])
  })

  it('keeps (user, session) pairs apart even when their concatenations collide', async () => {
    await append('c', [user('from a:b')], 'a:b')
    await append('b:c', [user('from a')], 'a')
    const first = await call('GET', '/v1/sessions/c/events', { user: 'a:b' })
    const second = await call('GET', '/v1/sessions/b:c/events', { user: 'a' })
    expect(first.body.events[0].message.content).toBe('from a:b')
    expect(second.body.events[0].message.content).toBe('from a')
  })
})

describe('auth configuration', () => {
  const withEnv = async (overrides: Partial<Env>, token?: string) => {
    const { app } = await import('../../src/http/app')
    const { env } = await import('cloudflare:workers')
    const headers = token ? { Authorization: `Bearer ${token}` } : undefined
    const response = await app.request('/v1/sessions', { headers }, { ...env, ...overrides })
    return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } }
  }

  it('a deployment without JWT_SECRET refuses every request (503), whatever the token', async () => {
    const result = await withEnv({ JWT_SECRET: undefined }, await tokenFor('alice'))
    expect(result.status).toBe(503)
    expect(result.body.error).toEqual({
      code: 'not_configured',
      message: 'authentication is not configured: set the JWT_SECRET secret or JWT_JWKS_URL',
    })
    expect((await withEnv({ JWT_SECRET: '' })).status).toBe(503)
  })

  it('checks iss and aud when they are configured', async () => {
    const config = { JWT_ISSUER: 'https://issuer.example', JWT_AUDIENCE: 'sessions-api' }
    const good = await tokenFor('alice', { iss: 'https://issuer.example', aud: 'sessions-api' })
    expect((await withEnv(config, good)).status).toBe(200)
    expect((await withEnv(config, await tokenFor('alice', { iss: 'https://evil.example', aud: 'sessions-api' }))).status).toBe(
      401,
    )
    expect((await withEnv(config, await tokenFor('alice', { iss: 'https://issuer.example', aud: 'other' }))).status).toBe(401)
    expect((await withEnv(config, await tokenFor('alice'))).status).toBe(401)
  })
})
