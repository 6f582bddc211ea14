import {
  advanceStats,
  type BoundaryEvent,
  type ClearedEntry,
  clearedById,
  clearedEvent,
  columnsOf,
  concatColumns,
  isBoundary,
  type MessageEvent,
  namedIds,
  PackedColumns,
  type SessionEvent,
  statsOfColumns,
  type ViewColumns,
  type ViewPins,
  type ViewStats,
  viewAfter,
  viewEntryOf,
} from '../../core'
import { BODY_CACHE_LIMITS, type BodyCache, isolateBodies, KEEP, type Keeper, keeperOf } from './body-cache'
import { ENTRIES_KEPT, KeptEntries } from './kept-entries'
import type { SessionLog, ViewEntry } from './log'
import { seqRuns } from './seq-runs'
import type { SessionRecord } from './session-row'
import { ShownCleared } from './shown-cleared'

/** The view after a write, computed before the write and installed once it committed. */
export interface ViewAdvance {
  /** Its stats, counted with the pins after the write (which its PINS events and pinned appends change). */
  stats(pins: ViewPins): ViewStats
  /** Makes the new view the cached one; call it only after the write committed. */
  install(): void
}

/**
 * The session's view in memory as packed columns (seq, tokens, role, synthetic: 9 bytes an event,
 * no object per event), loaded on first use from the newest boundary and the events after it,
 * then advanced with every write, so reading the view never touches the rest of the log. Bodies
 * are read by seq, in batches, through the isolate's shared body cache.
 */
export class ViewCache {
  private columns: PackedColumns | null = null
  /** The view's cleared messages (its newest boundary's clearing), by seq: shown cleared on every view read. */
  private cleared = new Map<number, ClearedEntry>()
  private owner: number
  /** Events a pass just named by id (see {@link named}), so that its boundary is resolved without a lookup by id. */
  private naming = new Map<string, ViewEntry>()
  /** The view's entries as stored, by seq, so that a pass names what it keeps without reading the log. */
  private entries = new KeptEntries()
  private readonly shownCleared = new ShownCleared(ENTRIES_KEPT)

  /** Small events' bodies, in the cache every session object of the isolate shares. */
  private readonly bodies: BodyCache = isolateBodies

  constructor(private readonly log: SessionLog) {
    this.owner = this.bodies.newOwner()
  }

  /** The view's columns as of the record: the cached ones, or loaded (call it before new events are written). */
  columnsOf(record: SessionRecord): PackedColumns {
    if (this.columns) return this.columns
    const columns = new PackedColumns()
    if (record.boundarySeq === 0) {
      const entries = new KeptEntries()
      for (const entry of this.log.entriesAfter(0)) {
        columns.push(entry)
        entries.add(entry)
      }
      this.cleared = new Map()
      this.entries = entries
    } else {
      const [boundary] = this.log.range(record.boundarySeq, record.boundarySeq)
      if (!boundary || !isBoundary(boundary)) throw new Error(`session ${record.id}: boundary ${record.boundarySeq} is missing`)
      const filled = this.fill(columns, boundary, new Map(), this.log.entriesAfter(record.boundarySeq))
      this.cleared = filled.cleared
      this.entries = filled.entries
    }
    this.columns = columns
    return columns
  }

  /**
   * The entries of these seqs, remembered until the next boundary: a pass reads the ids of what it
   * keeps through here, and the boundary it then writes names exactly those.
   */
  named(seqs: ArrayLike<number>): ViewEntry[] {
    const entries = this.entries.of(seqs) ?? this.log.entriesOf(seqs)
    for (const entry of entries) this.naming.set(entry.id, entry)
    return entries
  }

  /** Entries (as stored) a boundary about to be written names, a rewind's restored view: resolved without a lookup by id. */
  remember(entries: Iterable<ViewEntry>): void {
    for (const entry of entries) this.naming.set(entry.id, entry)
  }

  /** The view as of the record, held as it is now while writes go on (appends only ever add past its end). */
  snapshot(record: SessionRecord): ViewColumns {
    return this.columnsOf(record).prefix()
  }

  /**
   * The view after `written` (events with their seqs, about to be appended to the record's log):
   * its stats, and the cached view replaced once the write committed. Without a boundary or a
   * PINS event among them the stats just advance, with no need to load the view; a PINS event
   * counts the view again (pinning or unpinning a question changes its turns).
   */
  advance(record: SessionRecord, written: readonly SessionEvent[]): ViewAdvance {
    const messages = written.filter((event): event is MessageEvent => event.type === 'MESSAGE')
    // Only a view in use keeps what is written to it: a session being filled and never read
    // (an import) must not push other sessions' events out of the isolate's cache.
    const keepBodies = () => {
      if (this.columns) for (const event of messages) this.bodies.keep(this.owner, event)
    }
    const boundary = written.findLast(isBoundary)
    if (!boundary) {
      // Read now, before the write: the log then still ends where the view does (a session with
      // no event yet may have no tables to read).
      const pinsChange = written.some((event) => event.type === 'PINS')
      const before = !pinsChange ? null : record.version === 0 ? new PackedColumns() : this.snapshot(record)
      return {
        stats: (pins) =>
          before ? statsOfColumns(concatColumns(before, columnsOf(messages)), pins) : advanceStats(record.stats, messages, pins),
        install: () => {
          if (this.columns)
            for (const event of messages) {
              const entry = viewEntryOf(event)
              this.columns.push(entry)
              this.entries.add(entry)
            }
          keepBodies()
        },
      }
    }
    const columns = new PackedColumns()
    const fresh = new Map(this.naming)
    for (const event of messages) fresh.set(event.id, viewEntryOf(event))
    this.naming.clear()
    const { cleared, entries } = this.fill(
      columns,
      boundary,
      fresh,
      messages.filter((event) => event.seq > boundary.seq).map(viewEntryOf),
    )
    return {
      stats: (pins) => statsOfColumns(columns, pins),
      install: () => {
        this.columns = columns
        this.cleared = cleared
        this.entries = entries
        this.shownCleared.keepOnly(cleared)
        keepBodies()
      },
    }
  }

  /**
   * A view after its newest boundary (the core's projection rule, `viewAfter`): the events it
   * names — written with it or just named by its pass (`fresh`), else read by id; those it
   * cleared at their cleared size — then the messages after it. Answers its clearing, by seq, and
   * its entries as stored.
   */
  private fill(
    columns: PackedColumns,
    boundary: BoundaryEvent,
    fresh: Map<string, ViewEntry>,
    after: Iterable<ViewEntry>,
  ): { cleared: Map<number, ClearedEntry>; entries: KeptEntries } {
    const stored = this.log.entriesByIds(namedIds(boundary.boundary).filter((id) => !fresh.has(id)))
    const byId = clearedById(boundary.boundary.cleared)
    const cleared = new Map<number, ClearedEntry>()
    const entries = new KeptEntries()
    const named = (id: string) => {
      const entry = fresh.get(id) ?? stored.get(id)
      if (entry) entries.add(entry)
      return entry
    }
    for (const entry of viewAfter(boundary, named, after)) {
      columns.push(entry)
      const clearing = byId.get(entry.id)
      if (clearing) cleared.set(entry.seq, clearing)
      // A named entry was kept as stored when it was looked up (its clearing aside).
      else entries.add(entry)
    }
    return { cleared, entries }
  }

  /** The view's cleared messages as its newest boundary lists them, and their seqs (loading the view if need be). */
  clearedOf(record: SessionRecord): { cleared: ClearedEntry[]; seqs: Set<number> } {
    this.columnsOf(record)
    return { cleared: [...this.cleared.values()], seqs: new Set(this.cleared.keys()) }
  }

  /**
   * {@link eventsOf} as the view shows them: a cleared message cleared. The view must be loaded
   * (its columns read: `snapshot`), and the events its own.
   */
  *shownEventsOf(seqs: ArrayLike<number>, keep = KEEP.bulk): Generator<MessageEvent> {
    for (const event of this.eventsOf(seqs, keep)) {
      const clearing = this.cleared.get(event.seq)
      yield clearing ? clearedEvent(event, clearing) : event
    }
  }

  /** {@link jsonOf} as the view shows them (see {@link shownEventsOf}): a cleared message's JSON written cleared (see {@link ShownCleared}). */
  *shownJsonOf(seqs: ArrayLike<number>, keep = KEEP.bulk): Generator<string> {
    if (this.cleared.size === 0) return yield* this.jsonOf(seqs, keep)
    // One share of the cache for the whole read, however its cleared messages cut it.
    const keeper = this.keeperOf(keep)
    for (let i = 0; i < seqs.length; ) {
      const clearing = this.cleared.get(seqs[i]!)
      if (clearing) {
        yield this.clearedJson(seqs[i]!, clearing, keeper)
        i++
        continue
      }
      let j = i + 1
      while (j < seqs.length && !this.cleared.has(seqs[j]!)) j++
      yield* this.jsonWith(Array.prototype.slice.call(seqs, i, j) as number[], keeper)
      i = j
    }
  }

  /** A cleared message's JSON as the view shows it. */
  private clearedJson(seq: number, clearing: ClearedEntry, keeper: Keeper): string {
    const known = this.shownCleared.get(seq, clearing)
    if (known !== undefined) return known
    const event = this.eventsWith([seq], keeper).next().value as MessageEvent
    return this.shownCleared.set(seq, clearing, JSON.stringify(clearedEvent(event, clearing)))
  }

  /**
   * The whole events of these seqs, in their order: kept ones from memory, the rest read in
   * batches — and kept when small, up to `keep` characters for this read (see {@link KEEP}).
   */
  eventsOf(seqs: ArrayLike<number>, keep = KEEP.bulk): Generator<MessageEvent> {
    return this.eventsWith(seqs, this.keeperOf(keep))
  }

  private *eventsWith(seqs: ArrayLike<number>, keeper: Keeper): Generator<MessageEvent> {
    for (const run of this.runs(seqs)) {
      if ('kept' in run) yield run.kept
      else for (const event of this.log.eventRange(run.from, run.to)) yield keeper(event as MessageEvent)
    }
  }

  /** The JSON text of the events of these seqs, in their order, written from memory or straight from storage. */
  jsonOf(seqs: ArrayLike<number>, keep = KEEP.bulk): Generator<string> {
    return this.jsonWith(seqs, this.keeperOf(keep))
  }

  private *jsonWith(seqs: ArrayLike<number>, keeper: Keeper): Generator<string> {
    for (const run of this.runs(seqs)) {
      if ('kept' in run) yield JSON.stringify(run.kept)
      else
        for (const row of this.log.jsonRange(run.from, run.to)) {
          // Parsed only to be kept: while this read has a share left, and not for a big event.
          if (keeper.left() > 0 && row.bodyChars <= 2 * BODY_CACHE_LIMITS.perEvent) keeper(row.event() as MessageEvent)
          yield row.json
        }
    }
  }

  /** Keeps what a read brings in, within its share of the cache. */
  private keeperOf = (share: number): Keeper => keeperOf(this.bodies, this.owner, share)

  /** One event by its seq, from memory when it is kept (and kept when small). */
  event(seq: number): MessageEvent | null {
    return this.eventsOf([seq], KEEP.prompt).next().value ?? null
  }

  /** Forgets the view and what was kept of it: the session was wiped. */
  reset(): void {
    this.columns = null
    this.cleared = new Map()
    this.entries = new KeptEntries()
    this.shownCleared.clear()
    this.naming.clear()
    this.owner = this.bodies.newOwner()
  }

  /** Seqs cut into kept events and runs of consecutive seqs to read from storage. */
  private *runs(seqs: ArrayLike<number>): Generator<{ kept: MessageEvent } | { from: number; to: number }> {
    for (const run of seqRuns(seqs)) {
      let from = run.from
      for (let seq = run.from; seq <= run.to; seq++) {
        const kept = this.bodies.get(this.owner, seq)
        if (!kept) continue
        if (from < seq) yield { from, to: seq - 1 }
        yield { kept }
        from = seq + 1
      }
      if (from <= run.to) yield { from, to: run.to }
    }
  }
}
