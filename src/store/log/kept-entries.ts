import type { ViewEntry } from './log'

/**
 * Up to how many events a view's entries are kept with its columns (~180 bytes each, ids
 * included): a pass then names what it keeps without reading the log. An agent loop's view in a
 * model's window holds hundreds; a longer view is named from storage.
 */
export const ENTRIES_KEPT = 8192

/**
 * A view's entries as stored (their tokens before any clearing), by seq, given up for good once
 * the view holds more than {@link ENTRIES_KEPT}.
 *
 * @example
 * const kept = new KeptEntries()
 * for (const entry of log.entriesAfter(0)) kept.add(entry)
 * kept.of([3, 4]) // their entries, or null when one is not kept
 */
export class KeptEntries {
  private kept: Map<number, ViewEntry> | null = new Map()

  /** Keeps an entry of the view, while the view is short enough to keep them all. */
  add(entry: ViewEntry): void {
    const { kept } = this
    if (!kept || kept.has(entry.seq)) return
    if (kept.size >= ENTRIES_KEPT) this.kept = null
    else kept.set(entry.seq, entry)
  }

  /** The entries of these seqs, in their order; null unless every one is kept. */
  of(seqs: ArrayLike<number>): ViewEntry[] | null {
    const { kept } = this
    if (!kept) return null
    const found: ViewEntry[] = []
    for (let i = 0; i < seqs.length; i++) {
      const entry = kept.get(seqs[i]!)
      if (!entry) return null
      found.push(entry)
    }
    return found
  }
}
