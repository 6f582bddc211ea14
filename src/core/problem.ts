/** What is wrong with a piece of input: where inside it, and why. */
export interface Problem {
  path: (string | number)[]
  message: string
}

/**
 * Renders a problem as `field.sub[2].leaf: message`.
 *
 * @example
 * formatProblem('trigger', { path: ['anyOf', 1, 'tokenCount'], message: 'must be an integer ≥ 1' })
 * // 'trigger.anyOf[1].tokenCount: must be an integer ≥ 1'
 */
export function formatProblem(prefix: string, problem: Problem): string {
  let path = prefix
  for (const part of problem.path) path += typeof part === 'number' ? `[${part}]` : path === '' ? part : `.${part}`
  return `${path}: ${problem.message}`
}

/** Window sizes and trigger thresholds are whole numbers of at least 1. */
export const isPositiveInteger = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1
