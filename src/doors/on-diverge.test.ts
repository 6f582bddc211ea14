import { describe, expect, it } from 'vitest'
import { ServiceError } from '../contract/errors'
import { onDivergeOf } from './on-diverge'

describe('onDivergeOf (ON_DIVERGE)', () => {
  it('is rewind when unset or blank, and takes rewind or reject as written', () => {
    expect(onDivergeOf(undefined)).toBe('rewind')
    expect(onDivergeOf(' ')).toBe('rewind')
    expect(onDivergeOf('reject')).toBe('reject')
    expect(onDivergeOf(' rewind ')).toBe('rewind')
  })

  it('refuses anything else as a deployment error naming the variable (503 not_configured)', () => {
    let thrown: unknown
    try {
      onDivergeOf('sometimes')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ServiceError)
    expect((thrown as ServiceError).body).toEqual({
      code: 'not_configured',
      message: 'ON_DIVERGE: "sometimes" is neither rewind nor reject',
    })
  })
})
