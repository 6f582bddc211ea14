import type { AcrossSessions } from '../../contract/search-settings'
import { type DocumentText, searchTextOf } from '../../core'
import type { Sql } from '../../sql'
import { hasExpired } from '../log/expiry'
import type { HandOver } from '../log/lifecycle'
import type { SessionLog } from '../log/log'
import type { SessionRecord } from '../log/session-row'
import type { ShardBatch, ShardEvent } from '../user-search/shard-types'
import { indexedText } from './fts-expression'

/** Events read from the log for one batch. */
const BATCH_EVENTS = 500
/** Characters one batch carries at most (an RPC value may be 32 MiB): a batch ends after the event that passes it. */
const BATCH_CHARS = 1024 * 1024
/** Characters of one event's text searched across sessions (the session's own search reads them all). */
export const SHARD_EVENT_CHARS = 32 * 1024
/** Events one hand-over reads at most: a large import is handed over in several, its alarm set again at once. */
const HANDOVER_EVENTS = 5000

/** A timestamp as UTC ISO 8601 (the shard compares them as strings); one that is no date, as it is. */
const utc = (at: string) => {
  const time = Date.parse(at)
  return Number.isNaN(time) ? at : new Date(time).toISOString()
}

/**
 * What a session hands to its user's search across sessions: its message events' texts, after
 * each write, from the alarm a write sets (never in the append's path), in batches, each noted
 * once its shard has taken it (`search_feed`: how far, and over how many shards — another count
 * starts over). A batch sent again after a crash adds nothing there.
 *
 * @example
 * const more = await feed.handOver(record, 4, (batch) => shard.add(batch))
 */
export class SearchFeed {
  /** How far the events were handed over, as last read or written (undefined: not read yet). */
  private shipped: { shards: number; seq: number } | null | undefined

  constructor(
    private readonly sql: Sql,
    private readonly log: SessionLog,
    /** A stored text/plain document's text: searched across sessions as in the session. */
    private readonly documentText: DocumentText = () => null,
  ) {}

  /** Whether events of the session wait to be handed over to `shards` shards. */
  waiting(record: SessionRecord, shards: number): boolean {
    return this.from(shards) < record.version
  }

  /** Forgets what it knew: the storage was wiped. */
  reset(): void {
    this.shipped = undefined
  }

  /**
   * Hands the events written since the last hand-over to `send` (the session's shard), a batch at
   * a time, each noted once sent; at most {@link HANDOVER_EVENTS}. Answers whether more is left.
   * `stillThis` says whether the session is still the one read (not wiped, not made anew).
   */
  async handOver(record: SessionRecord, shards: number, send: (batch: ShardBatch) => Promise<unknown>, stillThis: () => boolean) {
    let from = this.from(shards)
    const end = Math.min(record.version, from + HANDOVER_EVENTS)
    while (from < end) {
      const events: ShardEvent[] = []
      let chars = 0
      let last = from
      for (const event of this.log.range(from + 1, Math.min(end, from + BATCH_EVENTS))) {
        last = event.seq
        if (event.type !== 'MESSAGE') continue
        const text = indexedText(searchTextOf(event.message, this.documentText).slice(0, SHARD_EVENT_CHARS))
        if (text.trim() === '') continue
        events.push({ seq: event.seq, role: event.message.role, at: utc(event.timestamp), text })
        chars += text.length
        if (chars >= BATCH_CHARS) break
      }
      if (events.length > 0) await send({ sessionId: record.id, createdAt: record.createdAt, events })
      if (!stillThis()) return false
      this.note(shards, last)
      from = last
    }
    return from < record.version
  }

  /** The seq up to which events were handed over to `shards` shards (0: none, or to another count). */
  private from(shards: number): number {
    if (this.shipped === undefined) {
      const row = this.sql.first<{ shards: number; shipped: number }>`SELECT shards, shipped FROM search_feed`
      this.shipped = row ? { shards: row.shards, seq: row.shipped } : null
    }
    return this.shipped && this.shipped.shards === shards ? this.shipped.seq : 0
  }

  private note(shards: number, seq: number): void {
    this.sql.run`INSERT INTO search_feed (singleton, shards, shipped) VALUES (1, ${shards}, ${seq})
      ON CONFLICT (singleton) DO UPDATE SET shards = excluded.shards, shipped = excluded.shipped`
    this.shipped = { shards, seq }
  }
}

/** Where a session's events go for its user's search across sessions (the session object fills it in). */
export interface SearchPort {
  /** The deployment's setting as it is now; null when the search across sessions is off. */
  settings(): AcrossSessions | null
  /** Hands a batch to the session's shard among `shards`. */
  send(userId: string, shards: number, batch: ShardBatch): Promise<unknown>
}

/**
 * The feed as the session's alarm runs it (see `Lifecycle`'s `HandOver`): it waits while events
 * are not handed over (an expired session's never are), a write of events sets the alarm, and
 * the hand-over stops where the session was wiped or made anew meanwhile.
 *
 * @example
 * new Lifecycle(storage, directory, outbox, searchHandOver(feed, port, () => row.stored()))
 */
export function searchHandOver(feed: SearchFeed, port: SearchPort, stored: () => SessionRecord | null): HandOver {
  return {
    waiting: (record) => {
      const settings = port.settings()
      return settings !== null && !hasExpired(record) && feed.waiting(record, settings.shards)
    },
    // Any event: the hand-over notes how far it went past boundaries too (it sends only messages).
    wants: (events) => port.settings() !== null && events.length > 0,
    run: async (record) => {
      const settings = port.settings()
      if (settings === null) return
      const send = (batch: ShardBatch) => port.send(record.userId, settings.shards, batch)
      await feed.handOver(record, settings.shards, send, () => stored()?.createdAt === record.createdAt)
    },
  }
}
