import { describe, expect, it } from 'vitest'
import { queryTerms } from '.'
import { type Candidate, type Gathered, idf, MOST_RANKING_TERMS, rankGathered, rankingTerms } from './bm25'

const words = (q: string) =>
  rankingTerms(queryTerms(q)).map((term) => (term.kind === 'phrase' ? `"${term.words.join(' ')}"` : term.word))

describe('the terms a query is ranked by', () => {
  it('are its words but the stop words, each stem and each verb once, with its phrases and prefixes', () => {
    expect(words('When did Caroline go to the support groups?')).toEqual(['Caroline', 'go', 'support', 'groups'])
    expect(words('running runs ran "the plan" deploy*')).toEqual(['running', '"the plan"', 'deploy'])
    expect(words('went go')).toEqual(['went'])
  })

  it('keep the stop words of a query made of nothing else, and at most 32 terms', () => {
    expect(words('what is it')).toEqual(['what', 'is', 'it'])
    const many = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ')
    expect(rankingTerms(queryTerms(many))).toHaveLength(MOST_RANKING_TERMS)
  })
})

const candidate = (position: number, holds: boolean[], extra: Partial<Candidate> = {}): Candidate => ({
  group: 's',
  position,
  order: position,
  length: 10,
  holds,
  all: holds.every(Boolean),
  ...extra,
})

const part = (candidates: Candidate[], dfs: number[], documents = 100): Gathered => ({
  corpus: { documents, tokens: documents * 10 },
  dfs,
  candidates,
})

const positions = (hits: { candidate: Candidate }[]) => hits.map((hit) => hit.candidate.position)

describe('ranking candidates', () => {
  it('weighs a rare word over a common one, and an event holding more of them first', () => {
    expect(idf(1000, 10)).toBeGreaterThan(idf(1000, 500))
    const hits = rankGathered(
      [part([candidate(10, [true, false]), candidate(20, [false, true]), candidate(30, [true, true])], [2, 60])],
      false,
    )
    expect(positions(hits)).toEqual([30, 10, 20])
  })

  it('with allFirst, puts the events holding every word first whatever their score', () => {
    const rare = candidate(10, [true, false], { all: false })
    const every = candidate(20, [false, true], { all: true })
    expect(positions(rankGathered([part([rare, every], [1, 90])], false))).toEqual([10, 20])
    expect(positions(rankGathered([part([rare, every], [1, 90])], true))).toEqual([20, 10])
  })

  it('gives an event a share of its neighbours’ scores in its own session only', () => {
    const question = candidate(10, [true, true])
    const answer = candidate(11, [true, false])
    const other = candidate(50, [true, false], { order: 99 })
    // Without neighbours the newer `other` would tie with the answer and come first.
    expect(positions(rankGathered([part([question, answer, other], [5, 5])], false))).toEqual([10, 11, 50])
    // Seq 11 of another session is no neighbour: the newer event of equal score comes before it.
    const elsewhere = candidate(11, [true, false], { group: 't', order: 1 })
    expect(
      positions(rankGathered([part([question, elsewhere, candidate(30, [true, false], { order: 2 })], [5, 5])], false)),
    ).toEqual([10, 30, 11])
  })

  it('ranks the candidates of several indexes as one, their counts summed, ties newest first', () => {
    const a = part([candidate(1, [true], { group: 'a', order: 1 })], [1], 50)
    const b = part([candidate(1, [true], { group: 'b', order: 2 })], [1], 50)
    const hits = rankGathered([a, b], false)
    expect(hits.map((hit) => hit.part)).toEqual([1, 0])
    expect(hits[0]!.score).toBeCloseTo(hits[1]!.score)
  })
})
