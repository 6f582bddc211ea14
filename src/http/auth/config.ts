import { ServiceError } from '../../contract/errors'

/** Algorithms a key set's keys may sign with: asymmetric only (an HS token is `JWT_SECRET`'s). */
export const KEY_SET_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']

/** How tokens are verified, from the deployment's variables. */
export interface AuthConfig {
  /** The HS256 secret, if any. */
  secret?: string | undefined
  /** An identity provider's key set and the algorithms allowed for its keys, if any. */
  jwks?: { url: string; algorithms: readonly string[] } | undefined
  /** The header carrying tokens: `Authorization` (with `Bearer `) unless another is named (the bare token). */
  header?: string | undefined
  /** The claim that names the user. Default `sub`. */
  userClaim?: string | undefined
  issuer?: string | string[] | undefined
  audience?: string | string[] | undefined
  /** Clock skew allowed on `exp` and `nbf`. Default 60 s. */
  leewaySeconds?: number
}

const misconfigured = (message: string) => new ServiceError('not_configured', message)
const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '') ?? []
const oneOrMany = (value: string | undefined) => {
  const items = list(value)
  return items.length === 0 ? undefined : items.length === 1 ? items[0] : items
}

/** `JWT_JWKS_URL`: https, or http to this machine only (a local identity provider). */
function keySetUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw misconfigured('JWT_JWKS_URL is not a URL')
  }
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1'
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw misconfigured('JWT_JWKS_URL must be https (http only for localhost or 127.0.0.1)')
  return url.href
}

/**
 * The auth configuration of a deployment, checked: `JWT_SECRET` and/or `JWT_JWKS_URL` (one is
 * required), `JWT_ALGORITHMS`, `JWT_HEADER`, `JWT_USER_CLAIM`, `JWT_ISSUER` / `JWT_AUDIENCE`
 * (comma-separated).
 *
 * @throws {ServiceError} 503 `not_configured` naming the variable that is missing or wrong.
 * @example
 * app.use('/v1/*', bearerJwt((c) => authConfigOf(c.env)))
 */
export function authConfigOf(env: Env): AuthConfig {
  const { JWT_SECRET: secret, JWT_JWKS_URL: jwksUrl } = env
  if (!secret && !jwksUrl) throw misconfigured('authentication is not configured: set the JWT_SECRET secret or JWT_JWKS_URL')
  const algorithms = list(env.JWT_ALGORITHMS)
  for (const algorithm of algorithms)
    if (!KEY_SET_ALGORITHMS.includes(algorithm))
      throw misconfigured(`JWT_ALGORITHMS: ${algorithm} is not one of ${KEY_SET_ALGORITHMS.join(', ')}`)
  const header = env.JWT_HEADER?.trim()
  if (header && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(header)) throw misconfigured('JWT_HEADER is not a header name')
  return {
    secret: secret || undefined,
    jwks: jwksUrl ? { url: keySetUrl(jwksUrl), algorithms: algorithms.length > 0 ? algorithms : ['RS256', 'ES256'] } : undefined,
    header: header || undefined,
    userClaim: env.JWT_USER_CLAIM?.trim() || undefined,
    issuer: oneOrMany(env.JWT_ISSUER),
    audience: oneOrMany(env.JWT_AUDIENCE),
  }
}
