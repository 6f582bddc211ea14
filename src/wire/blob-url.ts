/**
 * The blob route's URL, one rule both ways: where a client reads a stored image or document
 * (`GET /v1/sessions/:id/blobs/sha256:<hex>`), and the blob such a URL names when a client sends
 * it back (a Responses item it was shown, resent as its input).
 */

/** Where a client reads the blobs of the session `sessionId`, on this service's `origin`. */
export const blobUrl =
  (origin: string, sessionId: string) =>
  (ref: string): string =>
    `${origin}/v1/sessions/${encodeURIComponent(sessionId)}/blobs/${ref}`

/**
 * The blob a URL of this service's blob route names, and the session whose route it is; null for
 * any other URL.
 *
 * @example
 * blobOfUrl('https://svc.example/v1/sessions/s1/blobs/sha256:ab…', 'https://svc.example') // { sessionId: 's1', ref: 'sha256:ab…' }
 */
export function blobOfUrl(url: string, origin: string): { sessionId: string; ref: string } | null {
  if (!url.startsWith(`${origin}/v1/sessions/`)) return null
  const match = /^([^/]+)\/blobs\/(sha256:[0-9a-f]{64})$/.exec(url.slice(`${origin}/v1/sessions/`.length))
  if (!match) return null
  try {
    return { sessionId: decodeURIComponent(match[1]!), ref: match[2]! }
  } catch {
    return null // a session id that is not valid percent-encoding names no session
  }
}
