/** Retrieval figures over a set of questions: how often an answering turn is first, in the first five, and its reciprocal rank. */
export interface RecallFigures {
  questions: number
  hitAt1: number
  hitAt5: number
  mrr: number
}

/**
 * The figures of ranked answers: for each question, the ids its search returned (best first) and
 * the ids that answer it. A question scores the rank of its first answering hit (MRR counts
 * 0 when none is returned).
 *
 * @example
 * figures([{ hits: ['a', 'b'], answers: ['b'] }]) // { questions: 1, hitAt1: 0, hitAt5: 1, mrr: 0.5 }
 */
export function figures(results: { hits: readonly string[]; answers: readonly string[] }[]): RecallFigures {
  let hitAt1 = 0
  let hitAt5 = 0
  let reciprocal = 0
  for (const { hits, answers } of results) {
    const rank = hits.findIndex((id) => answers.includes(id))
    if (rank === 0) hitAt1++
    if (rank >= 0 && rank < 5) hitAt5++
    if (rank >= 0) reciprocal += 1 / (rank + 1)
  }
  const n = Math.max(results.length, 1)
  return { questions: results.length, hitAt1: hitAt1 / n, hitAt5: hitAt5 / n, mrr: reciprocal / n }
}

/** A figure as a percentage with one decimal. */
export const percent = (x: number) => `${(100 * x).toFixed(1)}%`
