import bpeRanks from 'gpt-tokenizer/bpeRanks/cl100k_base'
import { GptEncoding } from 'gpt-tokenizer/GptEncoding'
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

/** `cl100k_base`'s encoder, built on its first count: an isolate that estimates nothing (routing, reads) never builds it. */
let cl100k: GptEncoding | null = null

/**
 * The default estimator: gpt-tokenizer with `cl100k_base`. Only this encoding's table is
 * bundled (1.2 MB); `o200k_base` would add 4 MB to the Worker for estimates within a few percent
 * of these, so a deployment that wants it swaps this encoding's name and table (docs/architecture.md, "Token estimates").
 * The encoder's maps are built when first asked to count (~50 ms in Node); the rank table itself
 * still loads with the bundle.
 */
export const defaultEstimator: TokenEstimator = gptTokenizerEstimator('cl100k_base', (text, options) => {
  cl100k ??= GptEncoding.getEncodingApi('cl100k_base', () => bpeRanks)
  return cl100k.countTokens(text, options)
})
