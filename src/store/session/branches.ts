import type { BranchesPageJson } from '../../contract/schemas'
import type { Rewind, Run } from '../../core'
import { jsonArray, jsonObject } from '../../json-stream'
import type { Sql } from '../sql'
import type { SessionLog } from './log'

/** The run of messages a rewind took off the lineage, as it is recorded with the REWIND. */
export interface Branch {
  firstId: string
  tipId: string
  /** Its message events. */
  events: number
  headline: string
}

/** How long a branch's headline is at most (characters). */
const HEADLINE_CHARS = 200

type BranchRow = { rewind_seq: number; first_id: string; tip_id: string; events: number; headline: string }

/**
 * The branches of a session: each run of messages a rewind abandoned, recorded in the same
 * transaction as its REWIND (the `branches` table), so listing them reads a row or two a branch,
 * never the log.
 */
export class SessionBranches {
  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
  ) {}

  /**
   * The branch of the runs a rewind abandons (its first and last message, how many, the first
   * text among them); null when they hold no message (no branch then). Reads the runs' messages
   * up to the first with text, and the first and last one's rows.
   */
  describe(runs: readonly Run[], messages: number): Branch | null {
    if (messages === 0) return null
    const ordered = [...runs].sort((a, b) => a.from - b.from)
    const first = ordered.map((run) => this.log.messageAt(run.from, run.to, 'first')).find((found) => found !== null)
    const tip = ordered
      .toReversed()
      .map((run) => this.log.messageAt(run.from, run.to, 'last'))
      .find((found) => found !== null)
    if (!first || !tip) return null
    return { firstId: first.id, tipId: tip.id, events: messages, headline: this.headline(ordered) }
  }

  /** The first text of the runs' messages, cut to {@link HEADLINE_CHARS}. */
  private headline(runs: readonly Run[]): string {
    for (const run of runs)
      for (const event of this.log.eventRange(run.from, run.to)) {
        if (event.type !== 'MESSAGE') continue
        const text = (event.message.content ?? '').trim()
        if (text !== '') return [...text].slice(0, HEADLINE_CHARS).join('')
      }
    return ''
  }

  /** Records the branch the REWIND at `rewindSeq` abandoned (call it inside the REWIND's write). */
  record(rewindSeq: number, branch: Branch): void {
    this.sql.run`INSERT INTO branches (rewind_seq, first_id, tip_id, events, headline)
      VALUES (${rewindSeq}, ${branch.firstId}, ${branch.tipId}, ${branch.events}, ${branch.headline})`
  }

  /** `GET /branches`: the branches abandoned by rewinds before the seq `before`, newest first. */
  *page(before: number, limit: number): Generator<string> {
    const rows = this.sql.all<BranchRow>`SELECT * FROM branches WHERE rewind_seq < ${before}
      ORDER BY rewind_seq DESC LIMIT ${limit + 1}`
    const page = rows.slice(0, limit)
    yield* jsonObject<BranchesPageJson>({
      branches: jsonArray(
        page.map((row) => {
          const [rewind] = this.log.range(row.rewind_seq, row.rewind_seq) as { id: string; timestamp: string; rewind: Rewind }[]
          if (!rewind) throw new Error(`the REWIND at ${row.rewind_seq} is missing`)
          return JSON.stringify({
            rewindEventId: rewind.id,
            at: { to: rewind.rewind.to, position: rewind.rewind.position },
            firstEventId: row.first_id,
            tipEventId: row.tip_id,
            events: row.events,
            headline: row.headline,
            abandonedAt: rewind.timestamp,
          } satisfies BranchesPageJson['branches'][number])
        }),
      ),
      nextBefore: JSON.stringify(rows.length > limit ? page.at(-1)!.rewind_seq : null),
    })
  }
}
