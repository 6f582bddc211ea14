const encoder = new TextEncoder()

/** Imported signing keys by secret, for the isolate's life (an endpoint's deliveries share one). */
const keys = new Map<string, Promise<CryptoKey>>()

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (!key) {
    const bytes = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0))
    key = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    if (keys.size >= 1000) keys.clear()
    keys.set(secret, key)
  }
  return key
}

/** A new endpoint secret: `whsec_` and 24 random bytes, base64 (the Standard Webhooks form). */
export function newWebhookSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(24))))}`
}

/**
 * The Standard Webhooks v1 signature of one attempt: `v1,` and the base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}`, keyed with the base64-decoded bytes after `whsec_`.
 *
 * @example
 * await webhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1700000000, '{"type":"turn.completed"}')
 */
export async function webhookSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await keyOf(secret)
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${id}.${timestamp}.${body}`)))
  return `v1,${btoa(String.fromCharCode(...mac))}`
}
