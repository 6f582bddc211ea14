/**
 * Calibration: what the deployed model counts against what we estimate. Our estimates use one
 * tokenizer (cl100k); the model may count differently (Llama, Qwen, Mistral tokenizers), so each
 * session learns the ratio reported ÷ estimated from the prompt tokens its chat calls report, and
 * fit checks and `contextFraction` settings scale estimates by it.
 */

/** A session's calibration: the smoothed ratio, and how many reports it absorbed. */
export interface Calibration {
  ratio: number
  samples: number
}

/** Before any report: our estimate is taken as the model's count. */
export const UNCALIBRATED: Calibration = { ratio: 1, samples: 0 }

/** Samples and the ratio stay within these bounds: a wild report cannot make a session unusable. */
export const RATIO_BOUNDS = { min: 0.5, max: 3 } as const

/** How far a report moves the ratio, at the least: five steady reports land within 10% of any ratio in the bounds. */
const SMOOTHING = 0.4

const clamp = (ratio: number) => Math.min(RATIO_BOUNDS.max, Math.max(RATIO_BOUNDS.min, ratio))

/**
 * The calibration after a chat call reported `reported` prompt tokens for a prompt we estimated
 * at `estimated`: the ratio moves toward the (clamped) sample — all the way for the first report,
 * then by at least {@link SMOOTHING} — and stays clamped. A report of nothing changes nothing.
 *
 * @example
 * absorb(UNCALIBRATED, 2000, 1000) // { ratio: 2, samples: 1 }
 */
export function absorb(calibration: Calibration, reported: number, estimated: number): Calibration {
  if (!(reported > 0) || !(estimated > 0) || !Number.isFinite(reported / estimated)) return calibration
  const sample = clamp(reported / estimated)
  const weight = Math.max(SMOOTHING, 1 / (calibration.samples + 1))
  return { ratio: clamp(calibration.ratio + weight * (sample - calibration.ratio)), samples: calibration.samples + 1 }
}
