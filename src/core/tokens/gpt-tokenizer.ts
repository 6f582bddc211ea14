import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { linearCount, type TokenEstimator } from '.'

/** Special-token text such as `<|endoftext|>` in user content is counted as plain text. */
const PLAIN = { disallowedSpecial: new Set<string>() }

/**
 * An estimator from one gpt-tokenizer encoding's `countTokens`, made linear on long runs and
 * safe on special-token text.
 *
 * @example
 * import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
 * const o200k = gptTokenizerEstimator('o200k_base', countTokens)
 */
export function gptTokenizerEstimator(
  encoding: string,
  count: (text: string, options: { disallowedSpecial: Set<string> }) => number,
): TokenEstimator {
  return {
    name: `gpt-tokenizer/${encoding}`,
    count: (text) => linearCount(text, (piece) => count(piece, PLAIN)),
  }
}

/**
 * The default estimator: gpt-tokenizer with `cl100k_base`. Only this encoding's table is
 * bundled (1.2 MB); `o200k_base` would add 4 MB to the Worker for estimates within a few percent
 * of these, so a deployment that wants it swaps this import (see the README).
 */
export const defaultEstimator: TokenEstimator = gptTokenizerEstimator('cl100k_base', countTokens)
