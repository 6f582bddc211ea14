/**
 * The `encrypted_content` of a Responses `compaction` item: an opaque token, signed with the
 * session's own key, that names the user, the session and the view it stands for (an event: the
 * pass's boundary, or the view's last event). Signed, not encrypted: it holds ids only.
 */

/** What a capsule names. */
export interface CapsuleClaims {
  userId: string
  sessionId: string
  /** The event the view stood at. */
  eventId: string
}

import { toBase64url as base64url, fromBase64url } from '../contract/base64url'
import { ServiceError } from '../contract/errors'
import type { TurnSession } from '../turns/session'

const PREFIX = 'dsc1'
const encoder = new TextEncoder()

const hmacKey = (secret: string) =>
  crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])

/**
 * Seals claims into a capsule with a session's secret.
 *
 * @example
 * const token = await sealCapsule(secret, { userId: 'u', sessionId: 's', eventId: 'evt_1' })
 */
export async function sealCapsule(secret: string, claims: CapsuleClaims): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify({ u: claims.userId, s: claims.sessionId, e: claims.eventId })))
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(payload)))
  return `${PREFIX}.${payload}.${base64url(signature)}`
}

/** The claims of a capsule sealed with this secret; null for anything else (forged, altered, another session's). */
export async function openCapsule(secret: string, token: string): Promise<CapsuleClaims | null> {
  const [prefix, payload, signature, ...rest] = token.split('.')
  if (prefix !== PREFIX || !payload || !signature || rest.length > 0) return null
  try {
    const valid = await crypto.subtle.verify('HMAC', await hmacKey(secret), fromBase64url(signature), encoder.encode(payload))
    if (!valid) return null
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(payload))) as { u?: unknown; s?: unknown; e?: unknown }
    if (typeof claims.u !== 'string' || typeof claims.s !== 'string' || typeof claims.e !== 'string') return null
    return { userId: claims.u, sessionId: claims.s, eventId: claims.e }
  } catch {
    return null
  }
}

/**
 * Where a request's capsule puts it: the seq of the event it names (0: the empty view). One that
 * is not this session's (made up, altered, another session's or user's: each session object —
 * one per user and session — signs with a secret of its own, so a capsule of another user's
 * session of the same name fails its signature) is a 400 naming `field`.
 */
export async function capsulePoint(
  capsule: { token: string; field: string },
  session: Pick<TurnSession, 'capsuleKey' | 'seqOf' | 'info'>,
): Promise<number> {
  const refused = () =>
    new ServiceError(
      'invalid_request',
      `${capsule.field}: not a compaction of this session (made up, altered, or another session's)`,
    )
  const secret = session.capsuleKey(false)
  const claims = secret === null ? null : await openCapsule(secret, capsule.token)
  if (!claims || claims.sessionId !== session.info().id) throw refused()
  if (claims.eventId === '') return 0
  const seq = session.seqOf(claims.eventId)
  if (seq === null) throw refused()
  return seq
}
