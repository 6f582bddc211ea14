import type { MessageEvent, SessionEvent } from '../../core'
import { clientCallsOf, type TurnResult } from '../../turns/session'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

type Row = { first_seq: number; last_seq: number; user_seq: number; reply_seq: number; usage: string | null }

/** The usage numbers a turn's record keeps, as the upstream reported it. */
type Usage = TurnResult['usage']

/** How a written step of a turn is recorded: by the event that opened it, with what the request wrote before. */
export interface TurnStep {
  /** The id of the event a retry names the step by: a content turn's user event, a continuation's tool event. */
  keyId: string
  /** The seq of the request's first event, when it wrote some before (interrupted results). */
  firstSeq?: number
  usage: Usage
}

/**
 * The record of written turn steps (the `turns` table; a row's `user_seq` is its key event), so
 * that a retried request answers the stored reply instead of calling the model again.
 */
export class TurnLog {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /** Records a step whose events were just written, its reply last (call it inside the write's transaction). */
  record(written: readonly SessionEvent[], step: TurnStep): void {
    const { keyId, firstSeq = written[0]!.seq, usage } = step
    const key = written.find((event) => event.id === keyId)!
    const last = written.at(-1)!.seq
    this.sql.run`INSERT INTO turns (id, first_seq, last_seq, user_seq, reply_seq, usage)
      VALUES (${keyId}, ${firstSeq}, ${last}, ${key.seq}, ${last}, ${usage === null ? null : JSON.stringify(usage)})`
  }

  /**
   * The completed turn whose user event has this id: its stored result; 'conflict' when the id is
   * in the log as something else (or with other content); null when it is not in the log.
   */
  find(id: string, content: string): TurnResult<Int32Array> | 'conflict' | null {
    const found = this.stored(id)
    if (!found) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const key = found.events.find((event) => event.id === id)
    return key?.type === 'MESSAGE' && key.message.role === 'user' && key.message.content === content ? found : 'conflict'
  }

  /** The stored result of the step opened by the event of this id, or null when no step was recorded for it. */
  stored(id: string): TurnResult<Int32Array> | null {
    const row = this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE id = ${id}`
    if (!row) return null
    const events = this.log.range(row.first_seq, row.last_seq)
    const reply = events.find((e) => e.seq === row.reply_seq) as MessageEvent
    return {
      reply,
      ...clientCallsOf(reply),
      events,
      compaction: null,
      usage: row.usage === null ? null : (JSON.parse(row.usage) as Usage),
      context: null,
    }
  }
}
