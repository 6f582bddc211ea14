import { hasExpired } from './expiry'
import type { PreparedSet, PreparedSummaries } from './prepared'
import type { SessionRecord, SessionRowCache } from './session-row'
import type { SessionWriter } from './session-writer'

/**
 * What a task that outlives its request writes to the session — a background pass's outcome, the
 * summary model's title, the prepared summaries — and reads of those: only while it is still the
 * session that request worked on, unexpired. A session deleted, erased or made anew meanwhile gets
 * none of it: nothing outlives its session's erasure.
 *
 * @example
 * const late = new LateWrites({ row, writer, prepared }, () => incarnation)
 * late.titled('Paris weather')
 */
export class LateWrites {
  constructor(
    private readonly parts: { row: SessionRowCache; writer: SessionWriter; prepared: PreparedSummaries },
    /** The creation time of the session the request worked on (null: it had none yet). */
    private readonly incarnation: () => string | null,
  ) {}

  /** The session row, when it is still that session and has not expired. */
  private stillOpen(): SessionRecord | null {
    const now = this.parts.row.stored()
    return now && now.createdAt === this.incarnation() && !hasExpired(now) ? now : null
  }

  /** Records how a background pass ended on the session row (a failure, and when; null: none), writing only when that changes. */
  noteBackgroundPass(failure: { code: string; message: string } | null): void {
    const now = this.stillOpen()
    if (!now || (failure === null && now.lastCompactionError === null)) return
    const lastCompactionError = failure && { error: failure, at: new Date().toISOString() }
    this.parts.writer.commit({ ...now, lastCompactionError }, [])
  }

  /** Gives the session the title its first summarizing pass's model wrote, unless a client's or a model's came meanwhile. */
  titled(title: string): void {
    const now = this.stillOpen()
    if (!now || now.titleSource === 'client' || now.titleSource === 'model') return
    this.parts.writer.commit({ ...now, title, titleSource: 'model' }, [])
  }

  /** The session's prepared summaries (round4 §6). */
  readonly prepared = {
    read: (): PreparedSet | null => (this.stillOpen() ? this.parts.prepared.read() : null),
    write: (set: PreparedSet): void => {
      if (this.stillOpen()) this.parts.prepared.write(set)
    },
  }
}
