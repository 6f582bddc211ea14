import { atSeq, isBoundary, type MessageEvent, type NewEvent, type SessionEvent } from '../events'
import { lineage } from '../lineage'
import { applyPins, type ViewPins, viewPins } from '../pins'
import { project } from '../projection'
import { columnsOf } from '../view/columns'
import { type SessionStore, VersionConflictError, type ViewSnapshot } from '.'

/**
 * The storage port on a plain array: the log in memory, the view projected from all of it on
 * every read, results listing whole events. For the core's tests and benchmarks, and as the
 * reference the Durable Object's store must agree with.
 *
 * @example
 * const store = new ArrayStore()
 * await store.append([event], 0)
 */
export class ArrayStore implements SessionStore {
  readonly log: SessionEvent[] = []

  get version(): number {
    return this.log.length
  }

  async readView(): Promise<ViewSnapshot> {
    const cleared = this.log.findLast(isBoundary)?.boundary.cleared
    const ids = new Set(cleared?.map((entry) => entry.eventId))
    const clearedSeqs = new Set(this.log.filter((event) => ids.has(event.id)).map((event) => event.seq))
    return {
      view: columnsOf(project(this.log)),
      version: this.version,
      pins: this.pins(),
      ...(cleared ? { cleared, clearedSeqs } : {}),
    }
  }

  /** The pins of the view now: PINS events on the lineage, in order, and the newest boundary's held events. */
  pins(): ViewPins {
    const seqs = new Map(this.log.map((event) => [event.id, event.seq]))
    const seqOf = (id: string) => seqs.get(id)
    let pinned = new Set<string>()
    for (const seq of lineage(this.log, (id) => seqOf(id)!)) {
      const event = this.log[seq - 1]!
      if (event.type === 'PINS') pinned = applyPins(pinned, event.pins)
    }
    const seqsOf = (ids: Iterable<string>) => new Set([...ids].flatMap((id) => seqOf(id) ?? []))
    return viewPins(seqsOf(pinned), seqsOf(this.log.findLast(isBoundary)?.boundary.held ?? []))
  }

  async readSince(version: number): Promise<SessionEvent[]> {
    return this.log.slice(version)
  }

  /** The message events of these seqs, in order. */
  eventsAt(seqs: ArrayLike<number>): MessageEvent[] {
    return Array.from(seqs, (seq) => this.log[seq - 1] as MessageEvent)
  }

  async readEvents(seqs: Int32Array): Promise<MessageEvent[]> {
    return this.eventsAt(seqs)
  }

  async readIds(seqs: Int32Array): Promise<string[]> {
    return Array.from(seqs, (seq) => this.log[seq - 1]!.id)
  }

  async append(events: NewEvent[], expectedVersion: number): Promise<SessionEvent[]> {
    return this.appendNow(events, expectedVersion)
  }

  /** The same append, synchronous: lets a test write while a pass awaits its summarizer. */
  appendNow(events: NewEvent[], expectedVersion: number = this.version): SessionEvent[] {
    if (expectedVersion !== this.version) throw new VersionConflictError(expectedVersion, this.version)
    const written = events.map((event, i) => atSeq(event, this.version + i + 1))
    this.log.push(...written)
    return written
  }
}
