import type { StepRecord, StoredStep, Usage } from '../../contract/turn-result'
import {
  type Content,
  clientMessagesOf,
  contentKey,
  lineageRuns,
  type MessageEvent,
  type RewindPoint,
  type SessionEvent,
  type ShownMessage,
  type ShownOptions,
} from '../../core'
import type { Sql } from '../../sql'
import type { SessionLog } from './log'

/** A step's key event's `step` column: where its reply is. */
type KeyColumn = { reply: number }
/** A step's reply's `step` column: the step's record. */
type StepColumn = { key: number; first: number; last: number; usage: Usage | null }

/** What a turn step adds to the write of its events: their `step` columns, and what its events do not hold. */
export interface StepWrite {
  columns(written: readonly SessionEvent[]): Map<number, string>
  /** Writes the rest of the step's record (call it inside the write's transaction). */
  writeRest(): void
}

/** Trailing assistant messages looked at, at most, before the ones a request is matched against. */
const TRAILING_REPLIES = 1000

/**
 * The record of written turn steps, so that a retried request answers the stored reply instead
 * of calling the model again: kept in the `step` column of the step's key event and reply,
 * `idempotency` pointing Idempotency-Keys at key events. Used only while the session exists.
 */
export class StepLog {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /**
   * The `step` columns of a step's events, written with them (so the record costs no rows of its
   * own): the key event names the reply; the reply holds the record (its key, first and last seq,
   * usage).
   */
  private stepColumns(written: readonly SessionEvent[], step: StepRecord): Map<number, string> {
    const { keyId, firstSeq = written[0]!.seq, usage } = step
    const key = written.find((event) => event.id === keyId)!
    const last = written.at(-1)!.seq
    const reply = step.replyId === undefined ? last : written.find((event) => event.id === step.replyId)!.seq
    const record: StepColumn = { key: key.seq, first: firstSeq, last, usage }
    // A step recorded under its reply (it added nothing) holds its record there alone.
    return new Map([
      ...(key.seq === reply ? [] : [[key.seq, JSON.stringify({ reply } satisfies KeyColumn)] as const]),
      [reply, JSON.stringify(record)],
    ])
  }

  /** How a step is recorded with the write of its events. */
  writeOf(step: StepRecord): StepWrite {
    return { columns: (written) => this.stepColumns(written, step), writeRest: () => this.writeIdempotency(step) }
  }

  /** Records what a step's events do not hold: its Idempotency-Key (call it inside the write's transaction). */
  private writeIdempotency(step: StepRecord): void {
    const { keyId, idempotency } = step
    if (idempotency) {
      this.sql.run`INSERT INTO idempotency (key, hash, turn_id) VALUES (${idempotency.key}, ${idempotency.hash}, ${keyId})`
    }
  }

  /** A `/turns` retry names its user event by id and sends its content again: that is all there is to compare. */
  completedTurn(id: string, content: Content): StoredStep | 'conflict' | null {
    const found = this.storedStep(id)
    if (!found) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const key = found.events.find((event) => event.id === id)
    return key?.type === 'MESSAGE' && key.message.role === 'user' && contentKey(key.message.content) === contentKey(content)
      ? found
      : 'conflict'
  }

  /** A regenerate's retry names its REWIND by id: the step that REWIND keyed, if it is one. */
  regenerated(id: string): StoredStep | 'conflict' | null {
    const found = this.storedStep(id)
    if (!found) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const key = found.events.find((event) => event.id === id)
    return key?.type === 'REWIND' && key.rewind.reason === 'regenerate' ? found : 'conflict'
  }

  storedStep(id: string): StoredStep | null {
    const key = this.sql.first<{ seq: number; step: string | null }>`SELECT seq, step FROM events WHERE id = ${id}`
    if (!key?.step) return null
    const column = JSON.parse(key.step) as KeyColumn | StepColumn
    return this.stepAt('reply' in column ? column.reply : key.seq)
  }

  storedReply(seq: number): StoredStep {
    return this.stepAt(seq) ?? this.stepOf(seq, { key: seq, first: seq, last: seq, usage: null })
  }

  /** The step whose reply is the event of this seq; null when its row holds no step record. */
  private stepAt(replySeq: number): StoredStep | null {
    const reply = this.sql.first<{ step: string | null }>`SELECT step FROM events WHERE seq = ${replySeq}`
    if (!reply?.step) return null
    const step = JSON.parse(reply.step) as Partial<StepColumn>
    return step.key === undefined ? null : this.stepOf(replySeq, step as StepColumn)
  }

  /** A step's events, read by its record. */
  private stepOf(replySeq: number, step: StepColumn): StoredStep {
    const events = this.log.range(step.first, step.last)
    const reply = events.find((e) => e.seq === replySeq) as MessageEvent
    return { reply, events, usage: step.usage ?? null }
  }

  idempotent(key: string): { hash: string; step: StoredStep } | null {
    const row = this.sql.first<{ hash: string; turn_id: string }>`SELECT hash, turn_id FROM idempotency WHERE key = ${key}`
    const step = row && this.storedStep(row.turn_id)
    return row && step ? { hash: row.hash, step } : null
  }

  viewAt(seq: number): RewindPoint | null {
    const [next] = this.log.shownFrom(seq + 1, Number.MAX_SAFE_INTEGER, 1)
    const boundary = this.log.boundaryAtOrBefore(next?.seq ?? Number.MAX_SAFE_INTEGER)
    const boundaryAfter = boundary !== null && boundary.seq > seq
    if (!next && !boundaryAfter) return null
    if (seq === 0) return { to: null, position: 'at' }
    if (next && !boundaryAfter) return { to: next.id, position: 'before' }
    // A boundary comes first: no message names that view; the last before it does, uncompacted.
    const [last] = this.log.shownBefore(seq + 1, 1)
    return { to: last?.id ?? null, position: 'at' }
  }

  clientTail(count: number, shown?: ShownOptions, after = 0): { messages: ShownMessage[]; empty: boolean } {
    const tail: ShownMessage[] = [] // newest first
    let replies = 0 // the trailing assistant messages, while they last
    let trailing = true
    for (const event of this.shownOnLineage(count + 1, after)) {
      for (const message of clientMessagesOf(event, shown).reverse()) {
        if (trailing && message.role === 'assistant' && replies < TRAILING_REPLIES) replies++
        else trailing = false
        tail.push({ message, seq: event.seq, id: event.id })
        if (!trailing && tail.length >= replies + count) return { messages: tail.reverse(), empty: false }
      }
    }
    return { messages: tail.reverse(), empty: tail.length === 0 }
  }

  /**
   * The lineage's messages a client was shown, newest first, read as taken: each run of the
   * lineage backwards (abandoned events are skipped), first `batch` rows (what a request needs
   * if each event is one message), then twice as many each time; none at or before `after`.
   */
  private *shownOnLineage(batch: number, after: number): Generator<MessageEvent> {
    for (const run of lineageRuns(Number.MAX_SAFE_INTEGER, this.log.rewinds.at)) {
      if (run.to <= after) return
      for (let before = run.to === Number.MAX_SAFE_INTEGER ? run.to : run.to + 1; ; batch = Math.min(batch * 2, 4096)) {
        const events = this.log.shownBefore(before, batch, Math.max(run.from, after + 1)) as MessageEvent[]
        yield* events
        if (events.length < batch) break
        before = events.at(-1)!.seq
      }
    }
  }
}
