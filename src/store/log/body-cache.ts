import type { MessageEvent } from '../../core'

/** How much of the session events the isolate keeps whole in memory (UTF-16 characters of text, tool arguments and data). */
export const BODY_CACHE_LIMITS = { perEvent: 32 * 1024, total: 8 * 1024 * 1024 }

const sizeOf = (event: MessageEvent) => {
  const m = event.message
  let chars = m.content?.length ?? 0
  for (const call of m.toolCalls ?? []) chars += call.arguments.length + call.name.length
  for (const response of m.toolResponses ?? []) chars += response.data.length + response.name.length
  return chars
}

/** A kept event, linked in recency order (most recent at the tail). */
interface Node {
  owner: number
  event: MessageEvent
  size: number
  newer: Node | null
  older: Node | null
}

/**
 * Small events kept whole so that reading a view mostly skips storage: one budget for every
 * session object of the isolate (they share its 128 MB), the least recently used dropped first.
 * A big event (a large tool result) is never kept: it is read by seq when needed. Events never
 * change once written, so a kept one is never stale; an owner that was wiped takes a new key, and
 * what it kept ages out.
 *
 * Maps to the nodes of one recency list: every operation is O(1), eviction included. (`lru-cache`
 * was tried first; chat turns measured no faster with it inside workerd, so these few lines stay
 * and the dependency does not.)
 *
 * @example
 * const bodies = new BodyCache()
 * const owner = bodies.newOwner()
 * bodies.keep(owner, event)
 * bodies.get(owner, event.seq) // the event, until it is the least recently used one past the budget
 */
export class BodyCache {
  /** Owner → seq → node: small-integer keys at both levels, nothing allocated to look one up. */
  private readonly nodes = new Map<number, Map<number, Node>>()
  private oldest: Node | null = null
  private newest: Node | null = null
  private chars = 0
  private owners = 0

  constructor(private readonly limits = BODY_CACHE_LIMITS) {}

  /** A key for one session's events (a new one after the session was wiped). */
  newOwner(): number {
    return ++this.owners
  }

  /** The kept event of this owner and seq, marked as just used. */
  get(owner: number, seq: number): MessageEvent | undefined {
    const node = this.nodes.get(owner)?.get(seq)
    if (!node) return undefined
    if (node !== this.newest) {
      this.unlink(node)
      this.append(node)
    }
    return node.event
  }

  /** Keeps the event if it is small, dropping the least recently used ones past the budget; answers the characters kept. */
  keep(owner: number, event: MessageEvent): number {
    const size = sizeOf(event)
    let kept = this.nodes.get(owner)
    if (size > this.limits.perEvent || kept?.has(event.seq)) return 0
    if (!kept) {
      kept = new Map()
      this.nodes.set(owner, kept)
    }
    const node: Node = { owner, event, size, newer: null, older: null }
    kept.set(event.seq, node)
    this.append(node)
    this.chars += size
    while (this.chars > this.limits.total && this.oldest) {
      const dropped = this.oldest
      this.unlink(dropped)
      const kept = this.nodes.get(dropped.owner)!
      kept.delete(dropped.event.seq)
      if (kept.size === 0) this.nodes.delete(dropped.owner)
      this.chars -= dropped.size
    }
    return size
  }

  /** Characters kept, for tests and benchmarks. */
  get size(): number {
    return this.chars
  }

  private append(node: Node): void {
    node.older = this.newest
    node.newer = null
    if (this.newest) this.newest.newer = node
    else this.oldest = node
    this.newest = node
  }

  private unlink(node: Node): void {
    if (node.older) node.older.newer = node.newer
    else this.oldest = node.newer
    if (node.newer) node.newer.older = node.older
    else this.newest = node.older
    node.older = null
    node.newer = null
  }
}

/** The isolate's one body cache: every session object running in it shares the budget. */
export const isolateBodies = new BodyCache()

/**
 * How much of the isolate's body cache one read may fill (characters): a prompt or a summary all
 * it reads (a model's context bounds it); a bulk answer — a view, a pass's result — an eighth of
 * the cache, so that reading one huge view never pushes every other session's events out.
 */
export const KEEP = { prompt: Number.POSITIVE_INFINITY, bulk: BODY_CACHE_LIMITS.total / 8 }

/** What one read keeps of the bodies it brings in: the event back, and the share it has left. */
export type Keeper = ((event: MessageEvent) => MessageEvent) & { left(): number }

/** A read's keeper: what it brings in kept for `owner`, until `share` characters are kept. */
export function keeperOf(bodies: BodyCache, owner: number, share: number): Keeper {
  let left = share
  const keep = (event: MessageEvent) => {
    if (left > 0) left -= bodies.keep(owner, event)
    return event
  }
  return Object.assign(keep, { left: () => left })
}
