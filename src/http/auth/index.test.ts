import { Hono } from 'hono'
import { sign } from 'hono/jwt'
import { describe, expect, it } from 'vitest'
import { onError } from '../errors'
import { bearerJwt, vouchedFor } from '.'

const SECRET = 'unit-secret'
const now = () => Math.floor(Date.now() / 1000)

/** The middleware alone in a Hono app, answering who the caller is. */
function appWith(options: { secret?: string; issuer?: string; audience?: string }) {
  const app = new Hono<{ Variables: { userId: string } }>()
  app.onError(onError)
  app.use(bearerJwt(() => ({ secret: options.secret, issuer: options.issuer, audience: options.audience })))
  app.get('/', (c) => c.text(c.get('userId')))
  return app
}
const get = (app: Hono<{ Variables: { userId: string } }>, token?: string) =>
  app.request('/', { headers: token ? { Authorization: `Bearer ${token}` } : {} })

describe('bearerJwt', () => {
  it('sets the user from sub, with 60 s of leeway on exp and nbf', async () => {
    const app = appWith({ secret: SECRET })
    const response = await get(app, await sign({ sub: 'ana', exp: now() - 30, nbf: now() + 30 }, SECRET, 'HS256'))
    expect(await response.text()).toBe('ana')
  })

  it('answers 401 with WWW-Authenticate naming the problem', async () => {
    const app = appWith({ secret: SECRET, issuer: 'https://issuer.example', audience: 'sessions' })
    const cases: [string | undefined, string][] = [
      [undefined, 'a bearer token is required'],
      [
        await sign({ sub: 'ana', exp: now() - 120, iss: 'https://issuer.example', aud: 'sessions' }, SECRET, 'HS256'),
        'the token has expired',
      ],
      [await sign({ sub: 'ana' }, SECRET, 'HS256'), 'the token is invalid'], // no iss/aud: refused by the verifier
      [
        await sign({ sub: 'ana', exp: now() + 60, iss: 'https://issuer.example', aud: 'other' }, SECRET, 'HS256'),
        'the token is invalid',
      ],
      [
        await sign({ sub: '', exp: now() + 60, iss: 'https://issuer.example', aud: 'sessions' }, SECRET, 'HS256'),
        'the token has no valid subject (sub)',
      ],
    ]
    for (const [token, message] of cases) {
      const response = await get(app, token)
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ error: { code: 'unauthorized', message } })
      expect(response.headers.get('WWW-Authenticate')).toMatch(/^Bearer realm="durable-sessions"/)
    }
  })

  it('refuses every request with 503 when no secret is configured', async () => {
    const response = await get(appWith({}), await sign({ sub: 'ana', exp: now() + 60 }, 'anything', 'HS256'))
    expect(response.status).toBe(503)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_configured')
  })

  it('takes a request the Worker vouched for as its user, unverified; a copy of it, or the same sent from outside, needs a token', async () => {
    const app = appWith({ secret: SECRET })
    const forged = await sign({ sub: 'mallory', exp: now() + 60 }, 'not-the-secret', 'HS256')
    const made = () => new Request('http://worker/', { headers: { Authorization: `Bearer ${forged}` } })
    const vouched = vouchedFor(made(), 'ana')
    expect(await (await app.request(vouched)).text()).toBe('ana')
    for (const request of [new Request(vouched), made(), new Request('http://worker/')]) {
      const response = await app.request(request)
      expect(response.status).toBe(401)
    }
  })
})
