import { Sql } from '../sql'
import { MINUTE_MS, windowOf } from './limits'

/** The one row's columns: the minute counted and what was counted in it. */
interface Counted {
  window: number
  used: number
}

/**
 * What one request-limit shard counted this minute: one row in its object's SQLite (so counts
 * survive a restart), held in memory too — the object is the row's only writer — so admitting a
 * request reads no row and writes one.
 */
export class RequestWindow {
  private readonly sql: Sql
  private counted: Counted

  constructor(storage: SqlStorage) {
    this.sql = new Sql(storage)
    this.sql
      .run`CREATE TABLE IF NOT EXISTS requests (id INTEGER PRIMARY KEY CHECK (id = 0), window INTEGER NOT NULL, used INTEGER NOT NULL)`
    this.counted = this.sql.first<{ window: number; used: number }>`SELECT window, used FROM requests WHERE id = 0` ?? {
      window: 0,
      used: 0,
    }
  }

  private usedIn(window: number): number {
    return this.counted.window === window ? this.counted.used : 0
  }

  private save(window: number, used: number): void {
    this.sql.run`INSERT INTO requests (id, window, used) VALUES (0, ${window}, ${used})
      ON CONFLICT (id) DO UPDATE SET window = excluded.window, used = excluded.used`
    this.counted = { window, used }
  }

  /** Counts a request, or answers when this minute ends (ms since the epoch) if `share` are counted in it already. */
  admit(share: number, now: number): number | null {
    const window = windowOf(now, MINUTE_MS)
    const used = this.usedIn(window)
    if (used >= share) return window + MINUTE_MS
    this.save(window, used + 1)
    return null
  }

  /** Takes back one request counted this minute; false when there is none to take back. */
  takeBack(now: number): boolean {
    const window = windowOf(now, MINUTE_MS)
    const used = this.usedIn(window)
    if (used === 0) return false
    this.save(window, used - 1)
    return true
  }
}
