import type { BranchesPageJson } from '../../contract/schemas'
import { lineageRuns, onLineage, type Rewind, type Run, textOf } from '../../core'
import { jsonArray, jsonObject } from '../../json-stream'
import type { Sql } from '../../sql'
import type { SessionLog } from './log'

/** The run of messages a rewind took off the lineage, as it is recorded with the REWIND. */
export interface Branch {
  firstId: string
  firstSeq: number
  tipId: string
  /** The message it went on from (null: the start of the log). */
  parent: Message | null
  /** Its message events. */
  events: number
  headline: string
}

/** How long a branch's headline is at most (characters). */
const HEADLINE_CHARS = 200

type Message = { id: string; seq: number }

type BranchRow = {
  rewind_seq: number
  first_id: string
  first_seq: number
  tip_id: string
  events: number
  headline: string
  parent_id: string | null
  parent_seq: number | null
}

const cut = (text: string) => [...text].slice(0, HEADLINE_CHARS).join('')

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
   * text among them, the message before them on the `lineage` they leave); null when they hold no
   * message (no branch then). Reads the runs' messages up to the first with text, and the first,
   * last and parent's rows.
   */
  describe(runs: readonly Run[], messages: number, lineage: Iterable<Run>): Branch | null {
    if (messages === 0) return null
    const ordered = [...runs].sort((a, b) => a.from - b.from)
    const first = ordered.map((run) => this.log.messageAt(run.from, run.to, 'first')).find((found) => found !== null)
    const tip = ordered
      .toReversed()
      .map((run) => this.log.messageAt(run.from, run.to, 'last'))
      .find((found) => found !== null)
    if (!first || !tip) return null
    const parent = this.lastMessageBefore(first.seq, lineage)
    return { firstId: first.id, firstSeq: first.seq, tipId: tip.id, parent, events: messages, headline: this.headline(ordered) }
  }

  /** The last message of a lineage (its runs, newest first) before the seq `seq`; null: none. */
  private lastMessageBefore(seq: number, lineage: Iterable<Run>): Message | null {
    for (const run of lineage) {
      if (run.from >= seq) continue
      const found = this.log.messageAt(run.from, Math.min(run.to, seq - 1), 'last')
      if (found) return found
    }
    return null
  }

  /**
   * The first text the conversation said in the runs, cut to {@link HEADLINE_CHARS}: a pass's
   * summary or a system prompt heads a branch only when the runs hold nothing else with text.
   */
  private headline(runs: readonly Run[]): string {
    let fallback = ''
    for (const run of runs)
      for (const event of this.log.eventRange(run.from, run.to)) {
        if (event.type !== 'MESSAGE') continue
        const text = textOf(event.message.content).trim()
        if (text === '') continue
        if (!event.synthetic && event.message.role !== 'system') return cut(text)
        fallback ||= cut(text)
      }
    return fallback
  }

  /** Records the branch the REWIND at `rewindSeq` abandoned (call it inside the REWIND's write). */
  record(rewindSeq: number, branch: Branch): void {
    const { firstId, firstSeq, tipId, events, headline, parent } = branch
    this.sql.run`INSERT INTO branches (rewind_seq, first_id, first_seq, tip_id, events, headline, parent_id, parent_seq)
      VALUES (${rewindSeq}, ${firstId}, ${firstSeq}, ${tipId}, ${events}, ${headline}, ${parent?.id ?? null}, ${parent?.seq ?? 0})`
  }

  /**
   * `GET /branches`: the branches abandoned by rewinds before the seq `before`, newest first, each
   * with whether it and its parent are on the lineage of the log at `version` now (read back only
   * as far as the page's branches go).
   */
  *page(version: number, before: number, limit: number): Generator<string> {
    const rows = this.sql.all<BranchRow>`SELECT * FROM branches WHERE rewind_seq < ${before}
      ORDER BY rewind_seq DESC LIMIT ${limit + 1}`
    const page = rows.slice(0, limit)
    const rewindAt = this.log.rewinds.at
    const isOnLineage = onLineage(lineageRuns(version, rewindAt))
    // Branches recorded before their parent was kept (schema v4): found on the lineage they left.
    const parentOf = (row: BranchRow): Message | null =>
      row.parent_seq === null
        ? this.lastMessageBefore(row.first_seq, lineageRuns(row.rewind_seq - 1, rewindAt))
        : row.parent_id === null
          ? null
          : { id: row.parent_id, seq: row.parent_seq }
    yield* jsonObject<BranchesPageJson>({
      branches: jsonArray(
        page.map((row) => {
          const [rewind] = this.log.range(row.rewind_seq, row.rewind_seq) as { id: string; timestamp: string; rewind: Rewind }[]
          if (!rewind) throw new Error(`the REWIND at ${row.rewind_seq} is missing`)
          const parent = parentOf(row)
          return JSON.stringify({
            rewindEventId: rewind.id,
            at: { to: rewind.rewind.to, position: rewind.rewind.position },
            parentEventId: parent?.id ?? null,
            firstEventId: row.first_id,
            tipEventId: row.tip_id,
            events: row.events,
            headline: row.headline,
            abandonedAt: rewind.timestamp,
            onLineage: isOnLineage(row.first_seq),
            parentOnLineage: isOnLineage(parent?.seq ?? 0),
          } satisfies BranchesPageJson['branches'][number])
        }),
      ),
      nextBefore: JSON.stringify(rows.length > limit ? page.at(-1)!.rewind_seq : null),
    })
  }
}
