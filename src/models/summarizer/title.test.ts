import { describe, expect, it } from 'vitest'
import { titleOf } from './title'

describe('the title line of a summary answer', () => {
  it('is split from the summary, its quotes and final period dropped', () => {
    expect(titleOf('- Goals: ship it\nTitle: "Shipping the beta."')).toEqual({
      summary: '- Goals: ship it',
      title: 'Shipping the beta',
    })
    expect(titleOf('- Goals\n**Title:** Lisbon trip\n\n')).toEqual({ summary: '- Goals', title: 'Lisbon trip' })
  })

  it('is none when the answer does not end with one, or it is empty; the summary stays whole', () => {
    expect(titleOf('- Goals: ship it\n- Title: mentioned inside')).toEqual({
      summary: '- Goals: ship it\n- Title: mentioned inside',
      title: null,
    })
    expect(titleOf('- Goals\nTitle: ""')).toEqual({ summary: '- Goals', title: null })
    expect(titleOf(`- x\nTitle: ${'long '.repeat(60)}`).title).toHaveLength(200)
  })
})
