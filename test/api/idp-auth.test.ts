import { env } from 'cloudflare:workers'
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose'
import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { app } from '../../src/http/app'
import { REFETCH_COOLDOWN_MS } from '../../src/http/auth/key-set'
import { tokenFor } from '../helpers'

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>
interface SigningKey {
  alg: string
  kid: string
  pair: KeyPair
  jwk: JWK
}
const keys: Record<string, SigningKey> = {}
async function key(name: string, alg: string): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, { extractable: true })
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: name, alg, use: 'sig' }
  keys[name] = { alg, kid: name, pair, jwk }
  return keys[name]!
}

const hour = () => Math.floor(Date.now() / 1000) + 3600
/** A token signed by a key of the provider (`kid` given unless `kid: null`). */
async function signed(signer: SigningKey, claims: Record<string, unknown> = {}, header: { kid?: string | null } = {}) {
  const kid = header.kid === null ? {} : { kid: header.kid ?? signer.kid }
  return new SignJWT({ sub: 'ida', exp: hour(), ...claims })
    .setProtectedHeader({ alg: signer.alg, ...kid })
    .sign(signer.pair.privateKey)
}

let tenants = 0
/** A key set of its own on the fake identity provider (so no test sees another's cache). */
async function provider(state: Record<string, unknown>) {
  const base = `${inject('idpUrl')}/t${++tenants}-${Date.now().toString(36)}`
  const set = async (next: Record<string, unknown>) => {
    await fetch(`${base}/__state`, { method: 'POST', body: JSON.stringify(next) })
  }
  await set(state)
  return {
    url: `${base}/jwks`,
    set,
    fetches: async () => (await (await fetch(`${base}/__fetches`)).json()) as number,
  }
}

/** A request through the real app, with this deployment's auth variables. */
async function request(vars: Partial<Env>, headers: Record<string, string>) {
  const response = await app.request('/v1/sessions', { headers }, { ...env, ...vars })
  const body = (await response.json()) as { error?: { code: string; message: string }; sessions?: unknown[] }
  return { status: response.status, code: body.error?.code, message: body.error?.message }
}
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

beforeAll(async () => {
  await Promise.all([key('rsa-1', 'RS256'), key('rsa-2', 'RS256'), key('ec-1', 'ES256'), key('ps-1', 'PS256')])
})
afterEach(() => {
  vi.useRealTimers()
})

describe('tokens from an identity provider (JWKS)', () => {
  it('accepts RS256 and ES256 tokens signed by keys of the set; a token without kid is tried against each key of its algorithm', async () => {
    const idp = await provider({ keys: [keys['rsa-1']!.jwk, keys['rsa-2']!.jwk, keys['ec-1']!.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    expect((await request(vars, bearer(await signed(keys['rsa-1']!)))).status).toBe(200)
    expect((await request(vars, bearer(await signed(keys['ec-1']!)))).status).toBe(200)
    expect((await request(vars, bearer(await signed(keys['rsa-2']!, {}, { kid: null })))).status).toBe(200)
    expect(await idp.fetches()).toBe(1) // cached for the later tokens
    // HS256 with JWT_SECRET still works beside the set.
    expect((await request(vars, bearer(await tokenFor('alice')))).status).toBe(200)
  })

  it('the user is the session owner: a provider user sees only their own sessions', async () => {
    const idp = await provider({ keys: [keys['rsa-1']!.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    const ida = bearer(await signed(keys['rsa-1']!, { sub: `ida-${tenants}` }))
    const created = await app.request(
      '/v1/sessions',
      { method: 'POST', headers: { ...ida, 'Content-Type': 'application/json' }, body: '{"id":"from-idp"}' },
      { ...env, ...vars },
    )
    expect(created.status).toBe(201)
    expect(((await created.json()) as { userId: string }).userId).toBe(`ida-${tenants}`)
    const other = await app.request('/v1/sessions/from-idp', { headers: bearer(await tokenFor(`ida-${tenants}-not`)) }, env)
    expect(other.status).toBe(404)
  })

  it('allows only JWT_ALGORITHMS for the set’s keys', async () => {
    const idp = await provider({ keys: [keys['rsa-1']!.jwk, keys['ec-1']!.jwk, keys['ps-1']!.jwk] })
    const esOnly = { JWT_JWKS_URL: idp.url, JWT_ALGORITHMS: 'ES256' }
    expect((await request(esOnly, bearer(await signed(keys['ec-1']!)))).status).toBe(200)
    expect(await request(esOnly, bearer(await signed(keys['rsa-1']!)))).toMatchObject({ status: 401, code: 'unauthorized' })
    const ps = { JWT_JWKS_URL: idp.url, JWT_ALGORITHMS: 'PS256, RS256' }
    expect((await request(ps, bearer(await signed(keys['ps-1']!)))).status).toBe(200)
  })

  it('refuses alg confusion (HS256 signed with the public key), none, other HS algorithms and a kid whose key is of another algorithm', async () => {
    const rsa = keys['rsa-1']!
    const idp = await provider({ keys: [rsa.jwk, keys['ec-1']!.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    const publicPem = await exportSPKI(rsa.pair.publicKey)
    for (const secret of [publicPem, JSON.stringify(rsa.jwk), rsa.jwk.n!]) {
      const confused = await new SignJWT({ sub: 'mallory', exp: hour() })
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .sign(new TextEncoder().encode(secret))
      expect(await request(vars, bearer(confused))).toMatchObject({ status: 401, code: 'unauthorized' })
      // With no JWT_SECRET at all, an HS256 token has nothing to be checked with.
      expect((await request({ ...vars, JWT_SECRET: undefined }, bearer(confused))).status).toBe(401)
    }
    const none = `${btoa(JSON.stringify({ alg: 'none', kid: rsa.kid })).replaceAll('=', '')}.${btoa(JSON.stringify({ sub: 'mallory', exp: hour() })).replaceAll('=', '')}.`
    expect((await request(vars, bearer(none))).status).toBe(401)
    const hs512 = await new SignJWT({ sub: 'mallory', exp: hour() })
      .setProtectedHeader({ alg: 'HS512' })
      .sign(new TextEncoder().encode(env.JWT_SECRET!))
    expect((await request(vars, bearer(hs512))).status).toBe(401)
    // The EC key's kid on an RS256 token: that key cannot verify it.
    expect((await request(vars, bearer(await signed(rsa, {}, { kid: 'ec-1' })))).status).toBe(401)
    // A token signed by a key the set does not hold, under a kid it does.
    const stranger = await key('stranger', 'RS256')
    expect((await request(vars, bearer(await signed(stranger, {}, { kid: rsa.kid })))).status).toBe(401)
  })

  it('refuses expired tokens, wrong iss or aud (comma-separated lists allowed), a missing exp, and honours nbf with 60 s leeway', async () => {
    const rsa = keys['rsa-1']!
    const idp = await provider({ keys: [rsa.jwk] })
    const vars = { JWT_JWKS_URL: idp.url, JWT_ISSUER: 'https://idp.example/', JWT_AUDIENCE: 'sessions, sessions-staging' }
    const good = { iss: 'https://idp.example/', aud: 'sessions-staging' }
    expect((await request(vars, bearer(await signed(rsa, good)))).status).toBe(200)
    const now = Math.floor(Date.now() / 1000)
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, exp: now - 120 }, 'the token has expired'],
      [{ ...good, exp: undefined }, 'the token has no expiry (exp)'],
      [{ ...good, nbf: now + 120 }, 'the token is not valid yet'],
      [{ ...good, iss: 'https://evil.example/' }, 'the token is invalid'],
      [{ ...good, aud: 'other' }, 'the token is invalid'],
    ]
    for (const [claims, message] of cases)
      expect(await request(vars, bearer(await signed(rsa, claims)))).toEqual({ status: 401, code: 'unauthorized', message })
    expect((await request(vars, bearer(await signed(rsa, { ...good, exp: now - 30, nbf: now + 30 })))).status).toBe(200)
  })

  it('an unknown-kid storm refetches the set at most once per cooldown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const idp = await provider({ keys: [keys['rsa-1']!.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    const storm = async (n: number) =>
      Promise.all(
        Array.from(
          { length: n },
          async (_, i) => (await request(vars, bearer(await signed(keys['rsa-1']!, {}, { kid: `k${i}` })))).status,
        ),
      )
    expect(new Set(await storm(50))).toEqual(new Set([401]))
    expect(await idp.fetches()).toBe(1) // the first fetch; the unknown kids wait for the cooldown
    vi.setSystemTime(Date.now() + REFETCH_COOLDOWN_MS / 2)
    await storm(20)
    expect(await idp.fetches()).toBe(1)
    vi.setSystemTime(Date.now() + REFETCH_COOLDOWN_MS)
    await storm(20)
    expect(await idp.fetches()).toBe(2)
  })

  it('follows a key rotation: the new key works once the cooldown allows a refetch, the retired one stops', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const [oldKey, newKey] = [keys['rsa-1']!, keys['rsa-2']!]
    const idp = await provider({ keys: [oldKey.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    expect((await request(vars, bearer(await signed(oldKey)))).status).toBe(200)
    await idp.set({ keys: [newKey.jwk] })
    vi.setSystemTime(Date.now() + REFETCH_COOLDOWN_MS + 1000)
    expect((await request(vars, bearer(await signed(newKey)))).status).toBe(200)
    expect((await request(vars, bearer(await signed(oldKey)))).status).toBe(401)
    expect(await idp.fetches()).toBe(2)
  })

  it('a key set rotating mid-load: every answer a 200 or a 401, never a 5xx; at most one fetch per cooldown; then the new key works', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const [oldKey, newKey] = [keys['rsa-1']!, keys['rsa-2']!]
    const idp = await provider({ keys: [oldKey.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    const [oldToken, newToken] = [await signed(oldKey), await signed(newKey)]
    const wave = (n: number) =>
      Array.from({ length: n }, (_, i) => request(vars, bearer(i % 2 ? newToken : oldToken)).then((r) => r.status))
    const first = wave(30)
    await idp.set({ keys: [newKey.jwk] }) // rotated while the first wave is in flight
    const statuses = [...(await Promise.all(first)), ...(await Promise.all(wave(30)))]
    expect(new Set(statuses).size).toBeLessThanOrEqual(2)
    for (const status of statuses) expect([200, 401]).toContain(status)
    expect(await idp.fetches()).toBeLessThanOrEqual(2)
    vi.setSystemTime(Date.now() + REFETCH_COOLDOWN_MS + 1000)
    expect(
      new Set(await Promise.all(Array.from({ length: 20 }, () => request(vars, bearer(newToken)).then((r) => r.status)))),
    ).toEqual(new Set([200]))
  })

  it('keeps keys as long as Cache-Control says, within 5 minutes to an hour', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const rsa = keys['rsa-1']!
    const run = async (cacheControl: string, waitSeconds: number) => {
      const idp = await provider({ keys: [rsa.jwk], cacheControl })
      const vars = { JWT_JWKS_URL: idp.url }
      await request(vars, bearer(await signed(rsa)))
      vi.setSystemTime(Date.now() + waitSeconds * 1000)
      expect((await request(vars, bearer(await signed(rsa)))).status).toBe(200)
      return idp.fetches()
    }
    expect(await run('public, max-age=60', 200)).toBe(1) // held for the 5-minute minimum
    expect(await run('public, max-age=60', 310)).toBe(2)
    expect(await run('max-age=1800', 1700)).toBe(1)
    expect(await run('max-age=86400', 3700)).toBe(2) // an hour at most
  })

  it('503 auth_unavailable only when no key can be had for a good token: the set down, slow, huge or malformed; a bad token is still 401', async () => {
    const rsa = keys['rsa-1']!
    for (const state of [
      { mode: 'down' },
      { mode: 'slow', ms: 6000 },
      { mode: 'huge' },
      { mode: 'malformed' },
      { mode: 'nokeys' },
    ]) {
      const idp = await provider({ keys: [rsa.jwk], ...state })
      const vars = { JWT_JWKS_URL: idp.url }
      expect(await request(vars, bearer(await signed(rsa)))).toMatchObject({ status: 503, code: 'auth_unavailable' })
      const expired = await signed(rsa, { exp: Math.floor(Date.now() / 1000) - 120 })
      expect(await request(vars, bearer(expired))).toMatchObject({ status: 401, code: 'unauthorized' })
      expect((await request(vars, bearer('not-a-token'))).status).toBe(401)
    }
  }, 60_000)

  it('keeps its cached keys while the set is down, even past their time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const rsa = keys['rsa-1']!
    const idp = await provider({ keys: [rsa.jwk] })
    const vars = { JWT_JWKS_URL: idp.url }
    expect((await request(vars, bearer(await signed(rsa)))).status).toBe(200)
    await idp.set({ mode: 'down' })
    vi.setSystemTime(Date.now() + 3 * 3600 * 1000)
    expect((await request(vars, bearer(await signed(rsa)))).status).toBe(200)
    expect(await idp.fetches()).toBe(2) // tried, failed, kept the old keys
  })

  it('reads the token from JWT_HEADER only (Cloudflare Access), and the user from JWT_USER_CLAIM', async () => {
    const rsa = keys['rsa-1']!
    const idp = await provider({ keys: [rsa.jwk] })
    const access = { JWT_JWKS_URL: idp.url, JWT_HEADER: 'Cf-Access-Jwt-Assertion', JWT_USER_CLAIM: 'email' }
    const token = await signed(rsa, { email: 'ida@example.com' })
    expect((await request(access, { 'Cf-Access-Jwt-Assertion': token })).status).toBe(200)
    expect((await request(access, bearer(token))).status).toBe(401) // only the configured header is read
    expect(await request(access, { 'Cf-Access-Jwt-Assertion': await signed(rsa) })).toEqual({
      status: 401,
      code: 'unauthorized',
      message: 'the token has no valid user claim (email)',
    })
  })

  it('503 not_configured for a key set URL that is not https (http only for localhost) or an algorithm not allowed', async () => {
    for (const [vars, named] of [
      [{ JWT_JWKS_URL: 'http://idp.example/jwks' }, 'JWT_JWKS_URL'],
      [{ JWT_JWKS_URL: 'not a url' }, 'JWT_JWKS_URL'],
      [{ JWT_JWKS_URL: 'https://idp.example/jwks', JWT_ALGORITHMS: 'HS256' }, 'JWT_ALGORITHMS'],
      [{ JWT_JWKS_URL: 'https://idp.example/jwks', JWT_ALGORITHMS: 'none' }, 'JWT_ALGORITHMS'],
    ] as const) {
      const result = await request(vars, bearer(await tokenFor('alice')))
      expect(result).toMatchObject({ status: 503, code: 'not_configured' })
      expect(result.message).toContain(named)
    }
  })
})
