import { isInline, type Role, type ViewEvent } from '../events'

/**
 * A view as compaction reads it: one position per event, in view order, and for each only what
 * the rules look at — its seq, token estimate, role and whether compaction wrote it. A store can
 * keep this in a few bytes an event (see {@link PackedColumns}), so that a view of a million
 * events is a few megabytes, not a million objects.
 */
export interface ViewColumns {
  readonly length: number
  seq(position: number): number
  tokens(position: number): number
  role(position: number): Role
  synthetic(position: number): boolean
  /** A system message sent in place (see {@link isInline}): a conversation message like any other, not the system prompt. */
  inline(position: number): boolean
}

/** Positions in a view, in view order. */
export type Positions = Int32Array

/** Columns over an array of view events: what a store of whole events (or a test) has. */
export const columnsOf = (events: readonly ViewEvent[]): ViewColumns => ({
  length: events.length,
  seq: (p) => events[p]!.seq,
  tokens: (p) => events[p]!.tokens,
  role: (p) => events[p]!.message.role,
  synthetic: (p) => events[p]!.synthetic,
  inline: (p) => isInline(events[p]!),
})

/** One view followed by events appended to it (a pass moved onto newer messages). */
export const concatColumns = (first: ViewColumns, then: ViewColumns): ViewColumns => {
  const at = first.length
  const pick =
    <T>(get: (c: ViewColumns, p: number) => T) =>
    (p: number) =>
      p < at ? get(first, p) : get(then, p - at)
  return {
    length: at + then.length,
    seq: pick((c, p) => c.seq(p)),
    tokens: pick((c, p) => c.tokens(p)),
    role: pick((c, p) => c.role(p)),
    synthetic: pick((c, p) => c.synthetic(p)),
    inline: pick((c, p) => c.inline(p)),
  }
}

/** Some positions of a view, as a view of their own. */
export const pickColumns = (view: ViewColumns, positions: Positions): ViewColumns => ({
  length: positions.length,
  seq: (p) => view.seq(positions[p]!),
  tokens: (p) => view.tokens(positions[p]!),
  role: (p) => view.role(positions[p]!),
  synthetic: (p) => view.synthetic(positions[p]!),
  inline: (p) => view.inline(positions[p]!),
})

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool']
const ROLE_CODE: Record<Role, number> = { system: 0, user: 1, assistant: 2, tool: 3 }
const SYNTHETIC = 4
const INLINE = 8

/** A view event as packed columns take it. */
export interface PackedEvent {
  seq: number
  tokens: number
  role: Role
  synthetic: boolean
  /** Absent: false. */
  inline?: boolean
}

/** What a view keeps of a message event, with its id (what a boundary names it by): no body. */
export interface ViewEntry extends PackedEvent {
  id: string
}

/** An event's {@link ViewEntry}. */
export const viewEntryOf = (event: ViewEvent): ViewEntry => ({
  seq: event.seq,
  id: event.id,
  tokens: event.tokens,
  role: event.message.role,
  synthetic: event.synthetic,
  inline: isInline(event),
})

/**
 * View columns in typed arrays: 9 bytes an event, grown by doubling as events are appended. A
 * {@link prefix} stays what it was while later events are appended (growing copies the arrays;
 * appending writes past the prefix's end), so a reader can hold one while writes go on.
 *
 * @example
 * const view = new PackedColumns()
 * view.push({ seq: 1, tokens: 12, role: 'user', synthetic: false })
 * analyzeColumns(view.prefix())
 */
export class PackedColumns implements ViewColumns {
  private seqs: Int32Array
  private tokenCounts: Int32Array
  private flags: Uint8Array
  private size = 0

  constructor(capacity = 64) {
    this.seqs = new Int32Array(capacity)
    this.tokenCounts = new Int32Array(capacity)
    this.flags = new Uint8Array(capacity)
  }

  get length(): number {
    return this.size
  }

  /** The bytes the columns take (their capacity), for memory accounting. */
  get bytes(): number {
    return this.seqs.length * 9
  }

  seq(p: number): number {
    return this.seqs[p]!
  }
  tokens(p: number): number {
    return this.tokenCounts[p]!
  }
  role(p: number): Role {
    return ROLES[this.flags[p]! & 3]!
  }
  synthetic(p: number): boolean {
    return (this.flags[p]! & SYNTHETIC) !== 0
  }
  inline(p: number): boolean {
    return (this.flags[p]! & INLINE) !== 0
  }

  /** Columns holding these events, in order. */
  static of(events: Iterable<PackedEvent>): PackedColumns {
    const columns = new PackedColumns()
    for (const event of events) columns.push(event)
    return columns
  }

  push(event: PackedEvent): void {
    if (this.size === this.seqs.length) this.grow()
    this.seqs[this.size] = event.seq
    this.tokenCounts[this.size] = event.tokens
    this.flags[this.size] = ROLE_CODE[event.role] | (event.synthetic ? SYNTHETIC : 0) | (event.inline ? INLINE : 0)
    this.size += 1
  }

  /** The first `length` positions as they are now (default: all). */
  prefix(length = this.size): ViewColumns {
    const { seqs, tokenCounts, flags } = this
    return {
      length,
      seq: (p) => seqs[p]!,
      tokens: (p) => tokenCounts[p]!,
      role: (p) => ROLES[flags[p]! & 3]!,
      synthetic: (p) => (flags[p]! & SYNTHETIC) !== 0,
      inline: (p) => (flags[p]! & INLINE) !== 0,
    }
  }

  private grow(): void {
    const capacity = Math.max(64, this.seqs.length * 2)
    const copy = <T extends Int32Array | Uint8Array>(from: T, to: T) => {
      to.set(from)
      return to
    }
    this.seqs = copy(this.seqs, new Int32Array(capacity))
    this.tokenCounts = copy(this.tokenCounts, new Int32Array(capacity))
    this.flags = copy(this.flags, new Uint8Array(capacity))
  }
}

/** The seqs of some positions of a view. */
export const seqsAt = (view: ViewColumns, positions: Positions): Int32Array => positions.map((p) => view.seq(p))

/** The seqs of a whole view, in view order. */
export const allSeqs = (view: ViewColumns): Int32Array => {
  const seqs = new Int32Array(view.length)
  for (let p = 0; p < view.length; p++) seqs[p] = view.seq(p)
  return seqs
}

/**
 * Where the view's newest turn starts: the position of its last user message compaction did not
 * write (the view's length when it has no turn). Read from the end: it costs the turn's length.
 */
export const newestTurnStartOf = (view: ViewColumns): number => {
  for (let p = view.length - 1; p >= 0; p--) if (view.role(p) === 'user' && !view.synthetic(p)) return p
  return view.length
}

/** Whether the view's newest turn holds a summary (a pass inside it covered its earlier steps). */
export const summaryInNewestTurn = (view: ViewColumns): boolean => {
  for (let p = newestTurnStartOf(view) + 1; p < view.length; p++) if (view.synthetic(p)) return true
  return false
}

/** The seqs of the view's newest turn, from its start to the end (none when the view has no turn). */
export const newestTurnSeqs = (view: ViewColumns): Int32Array => {
  const start = newestTurnStartOf(view)
  const seqs = new Int32Array(view.length - start)
  for (let p = start; p < view.length; p++) seqs[p - start] = view.seq(p)
  return seqs
}
