import type { StepRecord, StoredStep, Usage } from '../../contract/turn-result'
import { clientMessagesOf, type MessageEvent, type SessionEvent, type ShownMessage } from '../../core'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

type Row = { first_seq: number; last_seq: number; user_seq: number; reply_seq: number; usage: string | null }

/** A step's key event's `step` column: where its reply is. */
type KeyColumn = { reply: number }
/** A step's reply's `step` column: the step's record. */
type StepColumn = { key: number; first: number; last: number; usage: Usage | null }

/** What a turn step adds to the write of its events: their `step` columns, and its other records. */
export interface StepWrite {
  columns(written: readonly SessionEvent[]): Map<number, string>
  record(): void
}

/** Trailing assistant messages looked at, at most, before the ones a request is matched against. */
const TRAILING_REPLIES = 1000

/**
 * The record of written turn steps, so that a retried request answers the stored reply instead
 * of calling the model again: kept in the `step` column of the step's key event and reply (schema
 * v8; steps written before are in the `turns` table), `idempotency` pointing Idempotency-Keys at
 * key events. Used only while the session exists.
 */
export class StepRecords {
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
    return new Map([
      [key.seq, JSON.stringify({ reply } satisfies KeyColumn)],
      [reply, JSON.stringify(record)],
    ])
  }

  /** How a step is recorded with the write of its events. */
  writeOf(step: StepRecord): StepWrite {
    return { columns: (written) => this.stepColumns(written, step), record: () => this.record(step) }
  }

  /** Records what a step's events do not hold: its Idempotency-Key (call it inside the write's transaction). */
  private record(step: StepRecord): void {
    const { keyId, idempotency } = step
    if (idempotency) {
      this.sql.run`INSERT INTO idempotency (key, hash, turn_id) VALUES (${idempotency.key}, ${idempotency.hash}, ${keyId})`
    }
  }

  completedTurn(id: string, content: string): StoredStep | 'conflict' | null {
    const found = this.storedStep(id)
    if (!found) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const key = found.events.find((event) => event.id === id)
    return key?.type === 'MESSAGE' && key.message.role === 'user' && key.message.content === content ? found : 'conflict'
  }

  storedStep(id: string): StoredStep | null {
    const key = this.sql.first<{ step: string | null }>`SELECT step FROM events WHERE id = ${id}`
    if (key?.step) {
      const row = this.stepAt((JSON.parse(key.step) as KeyColumn).reply)
      if (row) return this.resultOf(row)
    }
    if (!key || !this.hasLegacySteps()) return null
    const row = this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE id = ${id}`
    return row ? this.resultOf(row) : null
  }

  storedReply(seq: number): StoredStep {
    const row =
      this.stepAt(seq) ??
      (this.hasLegacySteps()
        ? this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE reply_seq = ${seq}`
        : null)
    return this.resultOf(row ?? { first_seq: seq, last_seq: seq, user_seq: seq, reply_seq: seq, usage: null })
  }

  /** The record a reply's row holds, as a row of the old `turns` table; null when it holds none. */
  private stepAt(replySeq: number): Row | null {
    const reply = this.sql.first<{ step: string | null }>`SELECT step FROM events WHERE seq = ${replySeq}`
    if (!reply?.step) return null
    const step = JSON.parse(reply.step) as Partial<StepColumn>
    if (step.key === undefined) return null
    return {
      first_seq: step.first!,
      last_seq: step.last!,
      user_seq: step.key,
      reply_seq: replySeq,
      usage: step.usage == null ? null : JSON.stringify(step.usage),
    }
  }

  /** Whether steps were recorded in the `turns` table, before schema v8 (looked up once per instance). */
  private legacy: boolean | null = null
  private hasLegacySteps(): boolean {
    this.legacy ??= this.sql.first<{ one: number }>`SELECT 1 AS one FROM turns LIMIT 1` !== null
    return this.legacy
  }

  idempotent(key: string): { hash: string; step: StoredStep } | null {
    const row = this.sql.first<{ hash: string; turn_id: string }>`SELECT hash, turn_id FROM idempotency WHERE key = ${key}`
    const step = row && this.storedStep(row.turn_id)
    return row && step ? { hash: row.hash, step } : null
  }

  clientTail(count: number): { messages: ShownMessage[]; empty: boolean } {
    const tail: ShownMessage[] = [] // newest first
    let replies = 0 // the trailing assistant messages, while they last
    let trailing = true
    let before = Number.MAX_SAFE_INTEGER
    // Rows read follow the request: first what it needs if each event is one message (and the
    // reply after it), then twice as many each time.
    for (let batch = count + 1; ; batch = Math.min(batch * 2, 4096)) {
      const events = this.log.shownBefore(before, batch)
      for (const event of events) {
        for (const message of clientMessagesOf(event as MessageEvent).reverse()) {
          if (trailing && message.role === 'assistant' && replies < TRAILING_REPLIES) replies++
          else trailing = false
          tail.push({ message, seq: event.seq })
          if (!trailing && tail.length >= replies + count) return { messages: tail.reverse(), empty: false }
        }
      }
      if (events.length < batch) return { messages: tail.reverse(), empty: tail.length === 0 }
      before = events.at(-1)!.seq
    }
  }

  private resultOf(row: Row): StoredStep {
    const events = this.log.range(row.first_seq, row.last_seq)
    const reply = events.find((e) => e.seq === row.reply_seq) as MessageEvent
    return { reply, events, usage: row.usage === null ? null : (JSON.parse(row.usage) as Usage) }
  }
}
