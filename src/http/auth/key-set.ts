import type { JSONWebKeySet } from 'jose'
import { log } from '../../log'

/** Keys are kept at least this long, at most an hour, as the set's Cache-Control says (else ten minutes). */
const TTL = { min: 300, max: 3600, default: 600 }
/** A fetch of the set (for a token with an unknown `kid`, or after a failure) at most this often. */
export const REFETCH_COOLDOWN_MS = 30_000
/** A key set slower than this, or bigger, is a failed fetch. */
const FETCH_TIMEOUT_MS = 5_000
const MAX_BYTES = 256 * 1024

/** How long a response's keys may be kept, in seconds. */
function ttlOf(cacheControl: string | null): number {
  const maxAge = /(?:^|,)\s*(?:s-)?max-age\s*=\s*"?(\d+)/i.exec(cacheControl ?? '')
  if (/no-store|no-cache/i.test(cacheControl ?? '') && !maxAge) return TTL.min
  const seconds = maxAge ? Number(maxAge[1]) : TTL.default
  return Math.min(TTL.max, Math.max(TTL.min, seconds))
}

/** The response body as text, refusing one over `MAX_BYTES` without reading all of it. */
async function boundedText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('Content-Length') ?? 0)
  if (declared > MAX_BYTES) throw new Error(`the key set is ${declared} bytes, over ${MAX_BYTES}`)
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > MAX_BYTES) {
      await reader.cancel()
      throw new Error(`the key set is over ${MAX_BYTES} bytes`)
    }
    text += decoder.decode(value, { stream: true })
  }
}

/** The public keys of a key set document; an error when it is not one. */
function keysOf(text: string): JSONWebKeySet {
  const document = JSON.parse(text) as { keys?: unknown }
  if (!document || !Array.isArray(document.keys)) throw new Error('the key set has no "keys" array')
  // Only public keys of kinds that sign asymmetrically: an `oct` key or a private part is never used.
  const keys = document.keys.filter(
    (key): key is JSONWebKeySet['keys'][number] =>
      !!key && typeof key === 'object' && ['RSA', 'EC', 'OKP'].includes(key.kty) && !('d' in key),
  )
  return { keys }
}

/**
 * An identity provider's key set as this isolate knows it: fetched when first needed, kept as
 * long as its Cache-Control allows (5 minutes to an hour), fetched again for an unknown `kid` at
 * most once per {@link REFETCH_COOLDOWN_MS} (a failed fetch counts; an old set is kept through
 * failures). Concurrent callers share one fetch.
 *
 * @example
 * const keys = await keySetFor(url).current() // null: no key can be had
 */
export class RemoteKeySet {
  private keys: JSONWebKeySet | null = null
  private expiresAt = 0
  private lastFetch = Number.NEGATIVE_INFINITY
  private fetching: Promise<void> | null = null

  constructor(
    readonly url: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The keys to verify with now: the cached set while fresh, else a fetch (cooldown allowing). */
  async current(): Promise<JSONWebKeySet | null> {
    if (this.keys && this.now() < this.expiresAt) return this.keys
    return this.refreshed()
  }

  /** The set fetched again for a `kid` it lacks, unless a fetch was made within the cooldown. */
  async refreshed(): Promise<JSONWebKeySet | null> {
    if (this.fetching) await this.fetching
    else if (this.now() - this.lastFetch >= REFETCH_COOLDOWN_MS) {
      this.fetching = this.fetch().finally(() => {
        this.fetching = null
      })
      await this.fetching
    }
    return this.keys
  }

  private async fetch(): Promise<void> {
    this.lastFetch = this.now()
    try {
      const response = await fetch(this.url, {
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      })
      if (!response.ok) throw new Error(`the key set answered ${response.status}`)
      this.keys = keysOf(await boundedText(response))
      this.expiresAt = this.now() + ttlOf(response.headers.get('Cache-Control')) * 1000
    } catch (error) {
      log.warn('the identity provider’s key set could not be fetched', {
        url: this.url,
        error: error instanceof Error ? error.message : String(error),
        keptKeys: this.keys?.keys.length ?? 0,
      })
    }
  }
}

/** This isolate's key sets, one per URL. */
const keySets = new Map<string, RemoteKeySet>()

/** The key set of a URL, shared by every request this isolate serves. */
export function keySetFor(url: string): RemoteKeySet {
  const known = keySets.get(url)
  if (known) return known
  const set = new RemoteKeySet(url)
  keySets.set(url, set)
  return set
}
