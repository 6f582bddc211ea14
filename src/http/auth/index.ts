import type { MiddlewareHandler } from 'hono'
import { verify } from 'hono/jwt'
import { ServiceError } from '../../contract/errors'

export interface BearerJwtOptions {
  /** The HS256 secret; a deployment without one refuses every request (503). */
  secret: string | undefined
  issuer?: string
  audience?: string
  /** Clock skew allowed on `exp` and `nbf`. Default 60 s. */
  leewaySeconds?: number
}

/** The longest user id accepted (it becomes part of Durable Object names). */
const MAX_USER_ID = 256

const REALM = 'durable-sessions'

const unauthorized = (description: string, invalidToken: boolean) =>
  new ServiceError('unauthorized', description, {
    'WWW-Authenticate': invalidToken
      ? `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`
      : `Bearer realm="${REALM}"`,
  })

/**
 * Bearer-token auth: an HS256 JWT (no other `alg`, `none` included), `sub` = the user, `exp`
 * required and enforced, `nbf` honoured, both with leeway; `iss`/`aud` checked when configured.
 * Sets `userId` on the context.
 *
 * @param options - read per request, since a Worker's variables come with each request:
 *   `secret` (none: every request is a 503), `issuer`, `audience`, `leewaySeconds` (default 60).
 * @throws {ServiceError} 401 `unauthorized` with `WWW-Authenticate: Bearer` for a missing or bad
 *   token; 503 `not_configured` when no secret is set.
 *
 * @example
 * ```ts
 * app.use('/v1/*', bearerJwt((c) => ({ secret: c.env.JWT_SECRET, issuer: c.env.JWT_ISSUER })))
 * ```
 */
export function bearerJwt<E extends { Variables: { userId: string } }>(
  options: (c: Parameters<MiddlewareHandler<E>>[0]) => BearerJwtOptions,
): MiddlewareHandler<E> {
  return async function bearerJwtAuth(c, next) {
    const { secret, issuer, audience, leewaySeconds = 60 } = options(c)
    if (!secret) {
      throw new ServiceError('not_configured', 'authentication is not configured: set the JWT_SECRET secret')
    }
    const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)$/i.exec(c.req.header('Authorization') ?? '')
    if (!match) throw unauthorized('a bearer token is required', false)

    let payload: Record<string, unknown>
    try {
      payload = await verify(match[1]!, secret, {
        alg: 'HS256',
        exp: false, // checked below, with leeway
        nbf: false,
        iat: false,
        ...(issuer ? { iss: issuer } : {}),
        ...(audience ? { aud: audience } : {}),
      })
    } catch {
      throw unauthorized('the token is invalid', true)
    }
    const now = Math.floor(Date.now() / 1000)
    const { exp, nbf, sub } = payload
    if (typeof exp !== 'number' || !Number.isFinite(exp)) throw unauthorized('the token has no expiry (exp)', true)
    if (exp + leewaySeconds <= now) throw unauthorized('the token has expired', true)
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf - leewaySeconds > now))
      throw unauthorized('the token is not valid yet', true)
    if (typeof sub !== 'string' || sub === '' || sub.length > MAX_USER_ID)
      throw unauthorized('the token has no valid subject (sub)', true)
    c.set('userId', sub)
    await next()
  }
}
