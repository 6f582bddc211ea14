import { describe, expect, it } from 'vitest'
import { queryTerms } from '.'
import { type MarkedMatch, rankWindow } from './rank'

/** A text as FTS5's highlight() gives it: `[x]` marks a match. */
const marked = (seq: number, text: string): MarkedMatch => ({
  seq,
  marked: text.replaceAll('[', '\u0001').replaceAll(']', '\u0002'),
})

describe('ranking a window of matches', () => {
  it('puts the more frequent and the shorter first, ties newest first', () => {
    const window = [
      marked(1, '[deploy] note one about many other things'),
      marked(2, '[deploy] [deploy] [deploy]'),
      marked(3, '[deploy] note'),
      marked(4, '[deploy] note'),
    ]
    expect(rankWindow(window, queryTerms('deploy'))).toEqual([2, 4, 3, 1])
  })

  it('counts each phrase in the marked pieces, whole words, prefixes and accents as search does', () => {
    const terms = queryTerms('"rollout plan" zur*')
    const window = [
      marked(1, 'the [rollout plan] for [Zürich], [rollout plan] again, then a long tail of words here'),
      marked(2, 'the [rollout plan] for [Zurich], the rollout and the plan, then a long tail of words here'),
    ]
    expect(rankWindow(window, terms)).toEqual([1, 2])
    // Overlapping instances come as one marked piece: each phrase is still counted in it.
    expect(rankWindow([marked(5, '[a b a b a] x'), marked(6, '[a b] x [b a] y')], queryTerms('"a b" "b a"'))).toEqual([5, 6])
  })

  it('takes every match to hold every phrase at least once, even one the marks missed', () => {
    expect(rankWindow([marked(7, 'no marks at all'), marked(8, 'no marks at all')], queryTerms('x y'))).toEqual([8, 7])
    expect(rankWindow([], queryTerms('x'))).toEqual([])
  })
})
