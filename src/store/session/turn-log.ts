import { clientMessagesOf, type MessageEvent, type SessionEvent } from '../../core'
import { type ShownMessage, storedResult, type TurnRecords, type TurnResult } from '../../turns/session'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

type Row = { first_seq: number; last_seq: number; user_seq: number; reply_seq: number; usage: string | null }

/** The usage numbers a turn's record keeps, as the upstream reported it. */
type Usage = TurnResult['usage']

/** How a written step of a turn is recorded: by the event that opened it, with what the request wrote before. */
export interface TurnStep {
  /** The id of the event a retry names the step by: a content turn's user event, a continuation's tool event. */
  keyId: string
  /** The reply's id, when events follow it (recall results); the last event otherwise. */
  replyId?: string
  /** The seq of the request's first event, when it wrote some before (interrupted results). */
  firstSeq?: number
  usage: Usage
  /** The request's `Idempotency-Key`, with the hash of its messages. */
  idempotency?: { key: string; hash: string }
}

/** Trailing assistant messages looked at, at most, before the ones a request is matched against. */
const TRAILING_REPLIES = 1000

/**
 * The record of written turn steps (the `turns` table; a row's `user_seq` is its key event, and
 * `idempotency` points Idempotency-Keys at rows), so that a retried request answers the stored
 * reply instead of calling the model again. Used only while the session exists.
 */
export class TurnLog implements TurnRecords<Int32Array> {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /** Records a step whose events were just written, its reply last (call it inside the write's transaction). */
  record(written: readonly SessionEvent[], step: TurnStep): void {
    const { keyId, firstSeq = written[0]!.seq, usage, idempotency } = step
    const key = written.find((event) => event.id === keyId)!
    const last = written.at(-1)!.seq
    const reply = step.replyId === undefined ? last : written.find((event) => event.id === step.replyId)!.seq
    this.sql.run`INSERT INTO turns (id, first_seq, last_seq, user_seq, reply_seq, usage)
      VALUES (${keyId}, ${firstSeq}, ${last}, ${key.seq}, ${reply}, ${usage === null ? null : JSON.stringify(usage)})`
    if (idempotency) {
      this.sql.run`INSERT INTO idempotency (key, hash, turn_id) VALUES (${idempotency.key}, ${idempotency.hash}, ${keyId})`
    }
  }

  completedTurn(id: string, content: string): TurnResult<Int32Array> | 'conflict' | null {
    const found = this.storedStep(id)
    if (!found) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const key = found.events.find((event) => event.id === id)
    return key?.type === 'MESSAGE' && key.message.role === 'user' && key.message.content === content ? found : 'conflict'
  }

  storedStep(id: string): TurnResult<Int32Array> | null {
    const row = this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE id = ${id}`
    return row ? this.resultOf(row) : null
  }

  storedReply(seq: number): TurnResult<Int32Array> {
    const row = this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE reply_seq = ${seq}`
    return this.resultOf(row ?? { first_seq: seq, last_seq: seq, user_seq: seq, reply_seq: seq, usage: null })
  }

  idempotent(key: string): { hash: string; result: TurnResult<Int32Array> } | null {
    const row = this.sql.first<{ hash: string; turn_id: string }>`SELECT hash, turn_id FROM idempotency WHERE key = ${key}`
    const result = row && this.storedStep(row.turn_id)
    return row && result ? { hash: row.hash, result } : null
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

  private resultOf(row: Row): TurnResult<Int32Array> {
    const events = this.log.range(row.first_seq, row.last_seq)
    const reply = events.find((e) => e.seq === row.reply_seq) as MessageEvent
    return storedResult(reply, events, row.usage === null ? null : (JSON.parse(row.usage) as Usage))
  }
}
