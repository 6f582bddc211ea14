import { SessionEndedError } from '../../core'
import { hasExpired } from './expiry'
import type { SessionRecord, SessionRowCache } from './session-row'

/**
 * The session one request works on, by its creation time: the one it found, else the first it
 * sees. One that ended while the request ran (expired, or deleted and perhaps created anew) is
 * never written to again: its writes fail (`SessionEndedError`).
 *
 * @example
 * const incarnation = new Incarnation(row, found)
 * const record = incarnation.writable() // null: none yet, the write creates it
 */
export class Incarnation {
  /** The session this request works on, by its creation time; null until there is one. */
  private incarnation: string | null

  /** `found`: the session as the request found it (null: it had none). */
  constructor(
    private readonly row: SessionRowCache,
    found: SessionRecord | null,
  ) {
    this.incarnation = found?.createdAt ?? null
  }

  /** The creation time of the session the request works on (null: it has none yet). */
  createdAt(): string | null {
    return this.incarnation
  }

  /**
   * The session row now, if it is the session the request works on: the one it found, else the
   * first it sees (created by its own write, or by another request meanwhile).
   */
  current(): SessionRecord | null {
    const now = this.row.stored()
    if (this.incarnation === null) {
      if (now) this.incarnation = now.createdAt
      return now
    }
    if (now === null || now.createdAt !== this.incarnation) throw new SessionEndedError()
    return now
  }

  /** The session a write goes to: the current one, unless it has expired meanwhile (null: none yet, the write creates it). */
  writable(): SessionRecord | null {
    const record = this.current()
    if (record && hasExpired(record)) throw new SessionEndedError()
    return record
  }
}
