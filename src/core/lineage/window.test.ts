import { describe, expect, it } from 'vitest'
import { lineageWindow } from './window'

/** No rewind: the lineage is the whole log. */
const none = () => null
/** A log of 12 whose REWIND at 8 took the view back to after event 4: the lineage is 1–4, then 8–12 (5–7 abandoned). */
const rewoundAt8 = (seq: number) => (seq >= 8 ? { seq: 8, end: 4 } : null)

describe('lineageWindow', () => {
  it('answers the newest events when no event is named, oldest first', () => {
    expect(lineageWindow(null, 12, 'around', 3, none)).toEqual([10, 11, 12])
    expect(lineageWindow(null, 2, 'around', 5, none)).toEqual([1, 2])
  })

  it('centres a page on the event named, filling from the other side at either end', () => {
    expect(lineageWindow(6, 12, 'around', 5, none)).toEqual([4, 5, 6, 7, 8])
    expect(lineageWindow(12, 12, 'around', 5, none)).toEqual([8, 9, 10, 11, 12])
    expect(lineageWindow(1, 12, 'around', 5, none)).toEqual([1, 2, 3, 4, 5])
    expect(lineageWindow(6, 12, 'around', 4, none)).toEqual([4, 5, 6, 7])
  })

  it('pages before and after an event, leaving it out', () => {
    expect(lineageWindow(6, 12, 'before', 3, none)).toEqual([3, 4, 5])
    expect(lineageWindow(6, 12, 'after', 3, none)).toEqual([7, 8, 9])
    expect(lineageWindow(1, 12, 'before', 3, none)).toEqual([])
    expect(lineageWindow(12, 12, 'after', 3, none)).toEqual([])
  })

  it('steps over what a rewind abandoned, the REWIND itself on the lineage', () => {
    expect(lineageWindow(null, 12, 'around', 6, rewoundAt8)).toEqual([4, 8, 9, 10, 11, 12])
    expect(lineageWindow(3, 12, 'around', 5, rewoundAt8)).toEqual([1, 2, 3, 4, 8])
    expect(lineageWindow(4, 12, 'after', 2, rewoundAt8)).toEqual([8, 9])
    expect(lineageWindow(9, 12, 'before', 3, rewoundAt8)).toEqual([3, 4, 8])
  })
})
