import { describe, expect, it } from 'vitest'
import { ServiceError, toOutcome, unwrap } from '.'

describe('ServiceError', () => {
  it('takes its status from its code', () => {
    expect(new ServiceError('context_overflow', 'too big').status).toBe(413)
    expect(new ServiceError('upstream_error', 'down').status).toBe(502)
    expect(new ServiceError('id_conflict', 'taken').body).toEqual({ code: 'id_conflict', message: 'taken' })
  })
})

describe('outcomes', () => {
  it('carry a service error across RPC as a value and back as the same error', async () => {
    const outcome = await toOutcome(() => {
      throw new ServiceError('session_exists', 'session "a" already exists')
    })
    expect(outcome).toEqual({ ok: false, error: { code: 'session_exists', message: 'session "a" already exists' } })
    expect(() => unwrap(outcome)).toThrow(expect.objectContaining({ code: 'session_exists', status: 409 }))
    expect(unwrap(await toOutcome(async () => 7))).toBe(7)
  })

  it('let any other error through: it is a bug, not a contract error', async () => {
    await expect(toOutcome(() => Promise.reject(new TypeError('boom')))).rejects.toThrow('boom')
  })
})
