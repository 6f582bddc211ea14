/**
 * Seqs cut into runs of consecutive ones, in their order: what a read by ranges takes.
 *
 * @example
 * [...seqRuns([3, 4, 5, 9])] // [{ from: 3, to: 5, start: 0 }, { from: 9, to: 9, start: 3 }]
 */
export function* seqRuns(seqs: ArrayLike<number>): Generator<{ from: number; to: number; start: number }> {
  for (let i = 0; i < seqs.length; ) {
    let j = i
    while (j + 1 < seqs.length && seqs[j + 1]! === seqs[j]! + 1) j++
    yield { from: seqs[i]!, to: seqs[j]!, start: i }
    i = j + 1
  }
}
