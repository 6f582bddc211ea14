import { advanceStats, extendView, isCompaction, type MessageEvent, type SessionEvent, statsOf, type ViewStats } from '../../core'
import { BodyBudget } from './body-budget'
import { type SessionLog, type ViewEntry, viewEntry } from './log'
import type { SessionRecord } from './session-row'

/** The view after a write, computed before the write and installed once it committed. */
export interface ViewAdvance {
  stats: ViewStats
  /** Makes the new view the cached one; call it only after the write committed. */
  install(): void
}

/**
 * The session's view, cached as small entries (ids, roles, token estimates), with the small
 * events kept whole within a budget. Loaded on first use in O(view) from the newest boundary and
 * the events after it, then advanced with every write, so reading the view never touches the
 * rest of the log.
 */
export class ViewCache {
  private entries: ViewEntry[] | null = null
  private readonly bodies = new BodyBudget()

  constructor(private readonly log: SessionLog) {}

  /**
   * The view's entries as of the record: the cached ones, or loaded from the newest boundary's
   * named events and the messages after it. Call it before new events are written.
   */
  entriesOf(record: SessionRecord): ViewEntry[] {
    if (this.entries) return this.entries
    this.bodies.reset()
    if (record.boundarySeq === 0) {
      this.entries = this.log.entriesAfter(0)
      return this.entries
    }
    const boundary = this.log.range(record.boundarySeq, record.boundarySeq)[0]
    if (boundary?.type !== 'COMPACTION') throw new Error(`session ${record.id}: boundary ${record.boundarySeq} is missing`)
    const { pinned, preserved } = boundary.boundary
    const named = this.log.entriesByIds([...pinned, ...preserved])
    // The summary events come right after the boundary: extendView takes them from there.
    const head = [...pinned, ...preserved].flatMap((id) => named.get(id) ?? [])
    this.entries = extendView<ViewEntry>(head, [boundary, ...this.log.entriesAfter(record.boundarySeq)])
    return this.entries
  }

  /**
   * The view after `written` (events with their seqs, about to be appended to the record's log):
   * its stats now, and the cached view replaced once the write committed. Without a boundary
   * among them the stats just advance, with no need to load the view.
   */
  advance(record: SessionRecord, written: readonly SessionEvent[]): ViewAdvance {
    const messages = written.filter((event): event is MessageEvent => event.type === 'MESSAGE')
    const entries = messages.map((event) => viewEntry({ ...event, role: event.message.role }))
    const entryOf = new Map(messages.map((event, i) => [event, entries[i]!]))
    const keepBodies = () => {
      if (this.entries) for (const [event, entry] of entryOf) this.bodies.keep(entry, event)
    }
    if (!written.some(isCompaction)) {
      return {
        stats: advanceStats(record.stats, entries),
        install: () => {
          if (this.entries) for (const entry of entries) this.entries.push(entry)
          keepBodies()
        },
      }
    }
    const view = extendView<ViewEntry>(
      this.entriesOf(record),
      written.map((event) => (event.type === 'MESSAGE' ? entryOf.get(event)! : event)),
    )
    return {
      stats: statsOf(view),
      install: () => {
        this.entries = view
        this.bodies.recount(view) // entries that left the view free their share
        keepBodies() // a boundary names its summary events: they are in the new view
      },
    }
  }

  /** A copy of the view's entries as of the record: a pass or a response holds it while writes go on. */
  snapshot(record: SessionRecord): ViewEntry[] {
    return this.entriesOf(record).slice()
  }

  /** The whole events of some entries, in their order: kept ones from memory, the rest read in batches (and kept if small). */
  *eventsOf(entries: readonly ViewEntry[]): Generator<MessageEvent> {
    for (const run of runs(entries)) {
      if ('kept' in run) {
        yield run.kept
        continue
      }
      let i = run.start
      for (const event of this.log.eventRange(entries[run.start]!.seq, entries[run.end]!.seq)) {
        const entry = entries[i++]!
        this.bodies.keep(entry, event as MessageEvent)
        yield event as MessageEvent
      }
    }
  }

  /** The JSON text of some entries' events, in their order, written from memory or straight from storage. */
  *jsonOf(entries: readonly ViewEntry[]): Generator<string> {
    for (const run of runs(entries)) {
      if ('kept' in run) yield JSON.stringify(run.kept)
      else for (const { json } of this.log.jsonRange(entries[run.start]!.seq, entries[run.end]!.seq)) yield json
    }
  }

  /** One event of the view by its seq, from memory when it is kept whole. */
  event(record: SessionRecord, seq: number): MessageEvent | null {
    const entry = this.entriesOf(record).find((e) => e.seq === seq)
    if (!entry) return null
    if (entry.full) return entry.full
    const [event] = this.log.range(seq, seq) as MessageEvent[]
    if (event) this.bodies.keep(entry, event)
    return event ?? null
  }

  /** Forgets the view: the session was wiped. */
  reset(): void {
    this.entries = null
    this.bodies.reset()
  }
}

/** Entries cut into the ones kept whole and runs of consecutive seqs (index ranges) to read from storage. */
function* runs(entries: readonly ViewEntry[]): Generator<{ kept: MessageEvent } | { start: number; end: number }> {
  for (let i = 0; i < entries.length; ) {
    const kept = entries[i]!.full
    if (kept) {
      yield { kept }
      i++
      continue
    }
    let end = i
    while (end + 1 < entries.length && !entries[end + 1]!.full && entries[end + 1]!.seq === entries[end]!.seq + 1) end++
    yield { start: i, end }
    i = end + 1
  }
}
