import type { MessageEvent, SessionEvent } from '../../core'
import { clientCallsOf, type TurnResult } from '../../turns/session'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

type Row = { first_seq: number; last_seq: number; user_seq: number; reply_seq: number; usage: string | null }

/** The usage numbers a turn's record keeps, as the upstream reported them. */
type Usage = TurnResult['usage']

/**
 * The record of completed chat turns (the `turns` table), so that a retried turn id answers the
 * stored reply instead of calling the model again.
 */
export class TurnLog {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /** Records a turn whose events were just written (call it inside the write's transaction). */
  record(written: readonly SessionEvent[], usage: Usage): void {
    const user = written.find((e) => e.type === 'MESSAGE' && e.message.role === 'user')!
    const first = written[0]!.seq
    const last = written.at(-1)!.seq
    this.sql.run`INSERT INTO turns (id, first_seq, last_seq, user_seq, reply_seq, usage)
      VALUES (${user.id}, ${first}, ${last}, ${user.seq}, ${last}, ${usage === null ? null : JSON.stringify(usage)})`
  }

  /**
   * The completed turn whose user event has this id: its stored result; 'conflict' when the id is
   * in the log as something else (or with other content); null when it is not in the log.
   */
  find(id: string, content: string): TurnResult<Int32Array> | 'conflict' | null {
    const row = this.sql.first<Row>`SELECT first_seq, last_seq, user_seq, reply_seq, usage FROM turns WHERE id = ${id}`
    if (!row) return this.log.byIds([id]).size > 0 ? 'conflict' : null
    const events = this.log.range(row.first_seq, row.last_seq)
    const user = events.find((e) => e.seq === row.user_seq)
    if (user?.type !== 'MESSAGE' || user.message.content !== content) return 'conflict'
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
