import type { MiddlewareHandler } from 'hono'
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  jwtVerify,
} from 'jose'
import { ServiceError } from '../../contract/errors'
import type { AuthConfig } from './config'
import { keySetFor } from './key-set'
import { vouchedUser } from './vouched'

export { type AuthConfig, authConfigOf } from './config'
export { vouchedFor } from './vouched'

/** The longest user id accepted (it becomes part of Durable Object names). */
const MAX_USER_ID = 256

const REALM = 'durable-sessions'

const unauthorized = (description: string, invalidToken: boolean) =>
  new ServiceError('unauthorized', description, {
    'WWW-Authenticate': invalidToken
      ? `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`
      : `Bearer realm="${REALM}"`,
  })
const invalid = () => unauthorized('the token is invalid', true)

/** The token of a request: `Authorization: Bearer …` (or `x-api-key`), or the bare value of the one header configured. */
function tokenOf(headerValue: string | undefined, bearer: boolean, apiKey?: string): string {
  const value = headerValue?.trim() ?? ''
  const token = apiKey?.trim() || (bearer ? /^Bearer[ ]+(\S+)$/i.exec(value)?.[1] : value)
  if (!token) throw unauthorized('a bearer token is required', false)
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw invalid()
  return token
}

/** The checks every token passes whoever signed it: an expiry, in time (with leeway). */
function checkTimes(payload: { exp?: unknown; nbf?: unknown }, leeway: number) {
  const now = Math.floor(Date.now() / 1000)
  const { exp, nbf } = payload
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw unauthorized('the token has no expiry (exp)', true)
  if (exp + leeway <= now) throw unauthorized('the token has expired', true)
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf - leeway > now)) throw unauthorized('the token is not valid yet', true)
}

/**
 * The keys a key-set token is checked against. Before the set is fetched the token must be
 * well-formed and in time: a bad token is a 401 whatever the provider's state. A `kid` the set
 * lacks fetches it again (at most once per cooldown); no key at all → 503 `auth_unavailable`.
 */
async function keySetKeys(url: string, token: string, kid: string | undefined, leeway: number): Promise<JWTVerifyGetKey> {
  let claims: Record<string, unknown>
  try {
    claims = decodeJwt(token)
  } catch {
    throw invalid()
  }
  checkTimes(claims, leeway)
  const set = keySetFor(url)
  let keys = await set.current()
  if (kid !== undefined && keys && !keys.keys.some((key) => key.kid === kid)) keys = await set.refreshed()
  if (!keys) throw new ServiceError('auth_unavailable', 'the identity provider’s keys cannot be fetched just now; try again')
  return createLocalJWKSet(keys)
}

/**
 * The payload of a token a key of the set signed. Without a `kid` several keys may fit its
 * algorithm: each is tried (jose hands them over as the error's iterator).
 */
async function verifiedByKeySet(token: string, keys: JWTVerifyGetKey, checks: JWTVerifyOptions) {
  try {
    return (await jwtVerify(token, keys, checks)).payload
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error
    for await (const key of error as errors.JWKSMultipleMatchingKeys & AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, key, checks)).payload
      } catch (failure) {
        if (!(failure instanceof errors.JWSSignatureVerificationFailed)) throw failure
      }
    }
    throw invalid()
  }
}

/** A verification failure in the contract's words. */
function refusal(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error
  if (error instanceof errors.JWTExpired) return unauthorized('the token has expired', true)
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf')
    return unauthorized('the token is not valid yet', true)
  return invalid()
}

/**
 * Bearer-token auth (the token in `Authorization: Bearer`, or in `x-api-key` as Anthropic's
 * clients send it). An HS256 token is verified with `secret` only; an RS/ES (or other allowed
 * asymmetric) token only with the identity provider's key set (`jwks`), never the other way
 * round, so neither can be passed off as the other; every other `alg`, `none` included, is
 * refused. `exp` is required and enforced, `nbf` honoured, both with leeway; `iss`/`aud` checked
 * when configured; the user is `userClaim` (default `sub`). Sets `userId` on the context.
 * Verification is jose's (`jwtVerify`, `createLocalJWKSet`); the key set's fetching and caching
 * are `RemoteKeySet`'s. A request the Worker made itself for a user it verified (`vouchedFor`, an
 * MCP tool's route) is that user's without its token verified a second time.
 *
 * @param options - read per request, since a Worker's variables come with each request (see
 *   `authConfigOf`).
 * @throws {ServiceError} 401 `unauthorized` with `WWW-Authenticate: Bearer` for a missing or bad
 *   token; 503 `not_configured` for a bad configuration; 503 `auth_unavailable` when a good
 *   token's keys cannot be had.
 *
 * @example
 * ```ts
 * app.use('/v1/*', bearerJwt((c) => authConfigOf(c.env)))
 * ```
 */
export function bearerJwt<E extends { Variables: { userId: string } }>(
  options: (c: Parameters<MiddlewareHandler<E>>[0]) => AuthConfig,
): MiddlewareHandler<E> {
  return async function bearerJwtAuth(c, next) {
    const vouched = vouchedUser(c.req.raw)
    if (vouched !== undefined) {
      c.set('userId', vouched)
      return next()
    }
    const { secret, jwks, header, userClaim = 'sub', issuer, audience, leewaySeconds = 60 } = options(c)
    if (!secret && !jwks)
      throw new ServiceError('not_configured', 'authentication is not configured: set the JWT_SECRET secret or JWT_JWKS_URL')
    const bearer = header === undefined || header.toLowerCase() === 'authorization'
    // Anthropic's clients send the token as `x-api-key`: taken before `Authorization` when both are sent.
    const token = tokenOf(c.req.header(header ?? 'Authorization'), bearer, bearer ? c.req.header('x-api-key') : undefined)
    let alg: string | undefined
    let kid: string | undefined
    try {
      ;({ alg, kid } = decodeProtectedHeader(token))
    } catch {
      throw invalid()
    }
    let payload: Record<string, unknown>
    try {
      const checks = { algorithms: [alg!], clockTolerance: leewaySeconds, issuer, audience }
      if (alg === 'HS256' && secret) payload = (await jwtVerify(token, new TextEncoder().encode(secret), checks)).payload
      else if (alg && jwks?.algorithms.includes(alg))
        payload = await verifiedByKeySet(token, await keySetKeys(jwks.url, token, kid, leewaySeconds), checks)
      else throw invalid()
    } catch (error) {
      throw refusal(error)
    }
    checkTimes(payload, leewaySeconds)
    const user = payload[userClaim]
    if (typeof user !== 'string' || user === '' || user.length > MAX_USER_ID)
      throw unauthorized(
        userClaim === 'sub' ? 'the token has no valid subject (sub)' : `the token has no valid user claim (${userClaim})`,
        true,
      )
    c.set('userId', user)
    await next()
  }
}
