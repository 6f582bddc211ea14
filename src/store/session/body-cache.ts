import { LRUCache } from 'lru-cache'
import type { MessageEvent } from '../../core'

/** How much of the session events the isolate keeps whole in memory (UTF-16 characters of text, tool arguments and data). */
export const BODY_CACHE_LIMITS = { perEvent: 32 * 1024, total: 8 * 1024 * 1024 }

const sizeOf = (event: MessageEvent) => {
  const m = event.message
  let chars = m.content?.length ?? 0
  for (const call of m.toolCalls ?? []) chars += call.arguments.length + call.name.length
  for (const response of m.toolResponses ?? []) chars += response.data.length + response.name.length
  return Math.max(1, chars)
}

/** Seqs fit in 31 bits (the view's columns are Int32): an owner and a seq make one number, no string to build. */
const SEQS = 2 ** 31

/**
 * Small events kept whole so that reading a view mostly skips storage: one budget for every
 * session object of the isolate (they share its 128 MB), the least recently used dropped first
 * (`lru-cache`). A big event (a large tool result) is never kept: it is read by seq when needed.
 * Events never change once written, so a kept one is never stale; an owner that was wiped takes
 * a new key, and what it kept ages out.
 *
 * @example
 * const bodies = new BodyCache()
 * const owner = bodies.newOwner()
 * bodies.keep(owner, event)
 * bodies.get(owner, event.seq) // the event, until it is the least recently used one past the budget
 */
export class BodyCache {
  private readonly kept: LRUCache<number, MessageEvent>
  private owners = 0

  constructor(private readonly limits = BODY_CACHE_LIMITS) {
    this.kept = new LRUCache<number, MessageEvent>({
      maxSize: limits.total,
      maxEntrySize: limits.perEvent,
      sizeCalculation: sizeOf,
    })
  }

  /** A key for one session's events (a new one after the session was wiped). */
  newOwner(): number {
    return ++this.owners
  }

  /** The kept event of this owner and seq, marked as just used. */
  get(owner: number, seq: number): MessageEvent | undefined {
    return this.kept.get(owner * SEQS + seq)
  }

  /** Keeps the event if it is small, dropping the least recently used ones past the budget; answers the characters kept. */
  keep(owner: number, event: MessageEvent): number {
    const key = owner * SEQS + event.seq
    const size = sizeOf(event)
    if (size > this.limits.perEvent || this.kept.has(key)) return 0
    this.kept.set(key, event, { size })
    return size
  }

  /** Characters kept, for tests and benchmarks. */
  get size(): number {
    return this.kept.calculatedSize
  }
}

/** The isolate's one body cache: every session object running in it shares the budget. */
export const isolateBodies = new BodyCache()
