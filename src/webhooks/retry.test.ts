import { describe, expect, it } from 'vitest'
import { nextAttemptAt, RETRY_FOR_MS, retryAfterSeconds } from './retry'

const HOUR = 3_600_000

describe('nextAttemptAt', () => {
  it('retries first within 10 s, then within a minute of that, then with growing delays', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempts) => nextAttemptAt({ attempts, createdAt: 0, now: 0 })!)
    expect(delays[0]).toBeLessThanOrEqual(10_000)
    expect(delays[1]).toBeLessThanOrEqual(60_000)
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThan(delays[i - 1]!)
  })

  it('keeps retrying for 24 hours, then gives up', () => {
    let now = 0
    let attempts = 0
    for (;;) {
      attempts++
      const next = nextAttemptAt({ attempts, createdAt: 0, now })
      if (next === null) break
      now = next
    }
    expect(now).toBeGreaterThanOrEqual(RETRY_FOR_MS)
    expect(now).toBeLessThan(RETRY_FOR_MS + 9 * HOUR)
    expect(attempts).toBeGreaterThan(8)
  })

  it('takes a Retry-After of at most 60 s in place of the schedule, and ignores a longer one', () => {
    expect(nextAttemptAt({ attempts: 3, createdAt: 0, now: 1000, retryAfterS: 2 })).toBe(3000)
    expect(nextAttemptAt({ attempts: 3, createdAt: 0, now: 1000, retryAfterS: 60 })).toBe(61_000)
    expect(nextAttemptAt({ attempts: 3, createdAt: 0, now: 1000, retryAfterS: 3600 })).toBe(121_000)
    // Never at once: a second at least.
    expect(nextAttemptAt({ attempts: 3, createdAt: 0, now: 1000, retryAfterS: 0 })).toBe(2000)
  })
})

describe('retryAfterSeconds', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-12-01T00:00:00Z')
    expect(retryAfterSeconds('7', now)).toBe(7)
    expect(retryAfterSeconds('Tue, 01 Dec 2026 00:00:30 GMT', now)).toBe(30)
    expect(retryAfterSeconds('soon', now)).toBeNull()
    expect(retryAfterSeconds(null, now)).toBeNull()
  })
})
