import { MINUTE_MS, type Refusal, requestShares, windowOf } from './limits'

/**
 * How long an isolate takes a shard's refusal as final. A share taken back meanwhile is found
 * again after it; a user over the limit costs each isolate at most one call per shard per second.
 */
const FULL_FOR_MS = 1000
/** Refusals remembered per isolate, at most (the oldest are forgotten first). */
const REMEMBERED = 10_000

/** Shards that refused, by key, until when (ms since the epoch): this isolate's, shared by its requests. */
const fullUntil = new Map<string, number>()

function remember(key: string, until: number): void {
  fullUntil.delete(key)
  if (fullUntil.size >= REMEMBERED) fullUntil.delete(fullUntil.keys().next().value!)
  fullUntil.set(key, until)
}

/** A shard's key in what this isolate remembers. */
const shardKey = (userId: string, shard: number) => `${shard}/${userId}`

/** One of a user's `RequestShard` objects, as the limit calls it. */
export interface RequestShardPort {
  /** Counts a request against `share`, or answers when the minute that refused it ends. */
  admit(share: number): Promise<number | null>
  /** Takes back a request counted this minute (false: none was). */
  takeBack(): Promise<boolean>
}

/** One user's request limit, counted across their shards (see {@link requestLimit}). */
export interface RequestLimit {
  /** Counts a request in a shard with room, or answers the refusal when every shard is full. */
  admit(): Promise<Refusal | null>
  /** Takes back a counted request that a later limit refused (from any shard that counted one this minute). */
  refund(): Promise<void>
}

/**
 * A user's request limit (`RATE_LIMIT_REQUESTS` a minute), split over up to 16 `RequestShard`
 * objects with a share each (see `requestShares`): a request is counted in a shard picked at
 * random, or the next one with room, so no single object bounds one user's request rate and the
 * limit is still the sum of the shares: a request is refused only when every shard refused it.
 * The one approximation: a share taken back from a shard this isolate saw full is found again
 * within a second.
 *
 * @example
 * const refusal = await requestLimit(userId, 600, (shard) => requestShardStub(env, userId, shard)).admit()
 * if (refusal) throw rateLimited(refusal, Date.now())
 */
export function requestLimit(userId: string, limit: number, shardOf: (shard: number) => RequestShardPort): RequestLimit {
  const shares = requestShares(limit)
  const start = Math.floor(Math.random() * shares.length)
  const order = shares.map((_, i) => (start + i) % shares.length)
  const stub = shardOf
  return {
    async admit() {
      const now = Date.now()
      let resetAt = windowOf(now, MINUTE_MS) + MINUTE_MS
      for (const shard of order) {
        const key = shardKey(userId, shard)
        if ((fullUntil.get(key) ?? 0) > now) continue
        const refusedUntil = await stub(shard).admit(shares[shard]!)
        if (refusedUntil === null) return null
        resetAt = refusedUntil
        remember(key, Math.min(refusedUntil, now + FULL_FOR_MS))
      }
      return { scope: 'requests', limit, resetAt }
    },
    async refund() {
      for (const shard of order)
        if (await stub(shard).takeBack()) {
          fullUntil.delete(shardKey(userId, shard))
          return
        }
    },
  }
}
