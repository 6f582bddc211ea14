/** Window sizes and trigger thresholds are whole numbers of at least 1. */
export const isPositiveInteger = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 1
