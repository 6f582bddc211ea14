import { describe, expect, it } from 'vitest'
import { ServiceError } from '../contract/errors'
import { limitsOf, MAX_REQUEST_SHARDS, requestShares } from './limits'

describe('limitsOf', () => {
  it('reads each limit, with its default when unset', () => {
    expect(limitsOf({})).toEqual({ requestsPerMinute: 600, turnsPerMinute: 60, tokensPerDay: 0, maxQueuedTurns: 8 })
    expect(limitsOf({ RATE_LIMIT_TURNS: '0', TOKEN_QUOTA_DAILY: ' 5000 ' })).toMatchObject({
      turnsPerMinute: 0,
      tokensPerDay: 5000,
    })
  })

  it('a limit that is not a whole number is a 503 not_configured naming it', () => {
    for (const value of ['lots', '-1', '1.5', '1e3']) {
      let thrown: unknown
      try {
        limitsOf({ RATE_LIMIT_TURNS: value })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ServiceError)
      expect((thrown as ServiceError).status).toBe(503)
      expect((thrown as ServiceError).code).toBe('not_configured')
      expect((thrown as ServiceError).message).toContain(
        `RATE_LIMIT_TURNS must be a whole number ≥ 0 (0 turns the limit off), not "${value}"`,
      )
    }
  })
})

describe('requestShares', () => {
  it('keeps a small limit on one object, whole', () => {
    expect(requestShares(1)).toEqual([1])
    expect(requestShares(8)).toEqual([8])
    expect(requestShares(199)).toEqual([199])
  })

  it('splits a larger one into shares of at least 100 that add up to the limit exactly', () => {
    expect(requestShares(650)).toEqual([109, 109, 108, 108, 108, 108])
    for (const limit of [200, 600, 1_599, 1_600, 12_345, 1_000_000_000]) {
      const shares = requestShares(limit)
      expect(shares.reduce((sum, share) => sum + share, 0)).toBe(limit)
      expect(Math.min(...shares)).toBeGreaterThanOrEqual(100)
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1)
    }
  })

  it('never uses more than 16 objects', () => {
    expect(requestShares(1_600)).toHaveLength(MAX_REQUEST_SHARDS)
    expect(requestShares(1_000_000_000)).toHaveLength(MAX_REQUEST_SHARDS)
  })
})
