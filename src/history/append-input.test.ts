import { describe, expect, it } from 'vitest'
import { SIZE_LIMITS } from '../contract/limits'
import { atSeq, defaultEstimator, newMessageEvent, type SessionEvent } from '../core'
import { checkAppendInputs, planAppend } from './append-input'

const stored = (id: string, content: string, seq: number): SessionEvent =>
  atSeq(newMessageEvent({ id, message: { role: 'user', content }, timestamp: 't' }, defaultEstimator), seq)
const input = (content: string, id?: string) => ({ ...(id ? { id } : {}), message: { role: 'user' as const, content } })

describe('checkAppendInputs', () => {
  it('refuses what the API refuses, in the same words', () => {
    expect(() => checkAppendInputs([])).toThrow('events: must hold 1 to 1000 events')
    expect(() => checkAppendInputs([input('a', 'x y')])).toThrow('events[0].id: must be 1–128 characters')
    expect(() => checkAppendInputs([input('a', 'd'), input('b', 'd')])).toThrow('events[1].id: "d" is also the id of events[0]')
  })

  it('refuses an event over the content limit with a 413 naming it', () => {
    const big = input('x'.repeat(SIZE_LIMITS.eventContentBytes + 1))
    expect(() => checkAppendInputs([input('small'), big])).toThrow(
      expect.objectContaining({ status: 413, message: expect.stringMatching(/^events\[1\]: /) }),
    )
    expect(() => checkAppendInputs([input('small', 'ok')])).not.toThrow()
  })
})

describe('planAppend', () => {
  it('writes only what is new and answers every input in request order, stored ones as stored', () => {
    const first = stored('e1', 'first', 1)
    const plan = planAppend([input('new one'), input('first', 'e1'), input('another')], new Map([['e1', first]]))
    expect(plan.fresh.map((e) => e.message.content)).toEqual(['new one', 'another'])
    const written = [stored('n1', 'new one', 2), stored('n2', 'another', 3)]
    expect(plan.answer(written).map((e) => e.id)).toEqual(['n1', 'e1', 'n2'])
  })

  it('is a 409 id_conflict when a stored id carries another message', () => {
    const first = stored('e1', 'first', 1)
    expect(() => planAppend([input('changed', 'e1')], new Map([['e1', first]]))).toThrow(
      expect.objectContaining({ code: 'id_conflict', message: 'event id "e1" is already in the log with a different message' }),
    )
  })

  it('treats messages as equal whatever their keys’ order', () => {
    const call = { id: 'c1', name: 'f', arguments: '{}' }
    const withCall = atSeq(
      newMessageEvent(
        { id: 'a1', message: { role: 'assistant', content: null, toolCalls: [call] }, timestamp: 't' },
        defaultEstimator,
      ),
      1,
    )
    const reordered = {
      id: 'a1',
      message: { toolCalls: [{ arguments: '{}', name: 'f', id: 'c1' }], content: null, role: 'assistant' as const },
    }
    expect(planAppend([reordered], new Map([['a1', withCall]])).fresh).toEqual([])
  })
})
