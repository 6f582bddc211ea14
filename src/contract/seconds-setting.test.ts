import { describe, expect, it } from 'vitest'
import { secondsSetting } from './seconds-setting'

describe('secondsSetting', () => {
  it('is the unset value when not given, the whole number when given; anything else a 503 naming the variable', () => {
    expect(secondsSetting('X_SECONDS', undefined, 7)).toBe(7)
    expect(secondsSetting('X_SECONDS', '  ', 7)).toBe(7)
    expect(secondsSetting('X_SECONDS', ' 600 ', 7)).toBe(600)
    expect(secondsSetting('X_SECONDS', '0', 7)).toBe(0)
    for (const bad of ['1h', '-5', '1.5', '1e3'])
      expect(() => secondsSetting('X_SECONDS', bad, 7), bad).toThrow(
        expect.objectContaining({ code: 'not_configured', message: expect.stringMatching(/^X_SECONDS: /) }),
      )
  })
})
