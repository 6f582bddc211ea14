import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { absorb, type Calibration, RATIO_BOUNDS, UNCALIBRATED } from '.'

const reports = (ratio: number, n: number, from: Calibration = UNCALIBRATED) => {
  let calibration = from
  for (let i = 0; i < n; i++) calibration = absorb(calibration, Math.round(1000 * ratio), 1000)
  return calibration
}

describe('calibration', () => {
  it('starts at 1, takes the first report, and counts the reports', () => {
    expect(UNCALIBRATED).toEqual({ ratio: 1, samples: 0 })
    expect(absorb(UNCALIBRATED, 2000, 1000)).toEqual({ ratio: 2, samples: 1 })
    expect(reports(1.3, 3).samples).toBe(3)
  })

  it('clamps samples and the ratio to [0.5, 3]', () => {
    expect(absorb(UNCALIBRATED, 10_000, 100).ratio).toBe(RATIO_BOUNDS.max)
    expect(absorb(UNCALIBRATED, 1, 1000).ratio).toBe(RATIO_BOUNDS.min)
  })

  it('ignores a report of nothing', () => {
    expect(absorb({ ratio: 1.5, samples: 4 }, 0, 1000)).toEqual({ ratio: 1.5, samples: 4 })
    expect(absorb({ ratio: 1.5, samples: 4 }, 900, 0)).toEqual({ ratio: 1.5, samples: 4 })
  })

  const ratio = fc.double({ min: RATIO_BOUNDS.min, max: RATIO_BOUNDS.max, noNaN: true })
  it('after five reports at one steady ratio inside the clamp is within 10% of it', () => {
    fc.assert(
      fc.property(ratio, (steady) => {
        const after = reports(steady, 5)
        expect(Math.abs(after.ratio - steady)).toBeLessThanOrEqual(0.1 * steady + 1e-3)
      }),
    )
  })

  it('follows a change of model: ten steady reports bring any settled ratio within 10% of the new one', () => {
    fc.assert(
      fc.property(ratio, ratio, fc.nat({ max: 50 }), (before, steady, samples) => {
        const after = reports(steady, 10, { ratio: before, samples })
        expect(Math.abs(after.ratio - steady)).toBeLessThanOrEqual(0.1 * steady + 1e-3)
      }),
    )
  })

  it('moves gradually once it has reports: one odd report does not undo them', () => {
    const settled = reports(2, 10)
    const odd = absorb(settled, 1000, 1000)
    expect(odd.ratio).toBeGreaterThan(1.5)
    expect(odd.ratio).toBeLessThan(2)
  })
})
