import { describe, expect, it } from 'vitest'
import { ServiceError } from '../contract/errors'
import { limitsOf } from '.'

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
