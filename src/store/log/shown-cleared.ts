import { type ClearedEntry, sameClearing } from '../../core'
import { BODY_CACHE_LIMITS } from './body-cache'

/**
 * Cleared messages' JSON as the view shows them, by seq, each with the clearing it was written
 * under: a cleared message's whole body (a large tool result, most often) is read and parsed
 * once, not on every answer that lists it. Only small ones, at most `limit` of them.
 *
 * @example
 * shown.get(seq, clearing) ?? shown.set(seq, clearing, JSON.stringify(clearedEvent(event, clearing)))
 */
export class ShownCleared {
  private readonly shown = new Map<number, { clearing: ClearedEntry; json: string }>()

  constructor(private readonly limit: number) {}

  /** The JSON written under this very clearing, if it was. */
  get(seq: number, clearing: ClearedEntry): string | undefined {
    const known = this.shown.get(seq)
    return known && sameClearing(known.clearing, clearing) ? known.json : undefined
  }

  /** Remembers (when there is room and it is no larger than a body the cache would keep) and answers the JSON. */
  set(seq: number, clearing: ClearedEntry, json: string): string {
    if (this.shown.size < this.limit && json.length <= 2 * BODY_CACHE_LIMITS.perEvent) this.shown.set(seq, { clearing, json })
    return json
  }

  /** Forgets what the view no longer clears (a new boundary's clearing). */
  keepOnly(cleared: ReadonlyMap<number, ClearedEntry>): void {
    for (const seq of this.shown.keys()) if (!cleared.has(seq)) this.shown.delete(seq)
  }

  clear(): void {
    this.shown.clear()
  }
}
