import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base'
import { linearCount, type TokenEstimator } from '.'

/** The encodings the service can estimate with. */
export type Encoding = 'cl100k_base' | 'o200k_base'
export const ENCODINGS: readonly Encoding[] = ['cl100k_base', 'o200k_base']
export const DEFAULT_ENCODING: Encoding = 'cl100k_base'

/** Special-token text such as `<|endoftext|>` in user content is counted as plain text. */
const PLAIN = { disallowedSpecial: new Set<string>() }

const estimatorOf = (encoding: Encoding, count: (text: string, options: typeof PLAIN) => number): TokenEstimator => ({
  name: `gpt-tokenizer/${encoding}`,
  count: (text) => linearCount(text, (piece) => count(piece, PLAIN)),
})

/** The default estimator: gpt-tokenizer with `cl100k_base`, loaded with the module. */
export const defaultEstimator: TokenEstimator = estimatorOf('cl100k_base', cl100kCount)

/**
 * Loads the estimator for an encoding. Encodings other than the default are imported on first
 * use, so a deployment that keeps the default never parses their (large) rank tables.
 *
 * @example
 * const estimator = await loadEstimator('o200k_base')
 * estimator.count('Hello, world') // 4
 */
export async function loadEstimator(encoding: Encoding = DEFAULT_ENCODING): Promise<TokenEstimator> {
  switch (encoding) {
    case 'cl100k_base':
      return defaultEstimator
    case 'o200k_base': {
      const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base')
      return estimatorOf('o200k_base', countTokens)
    }
  }
}
