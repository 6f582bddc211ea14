import { describe, expect, it } from 'vitest'
import { append, assistant, call, newTag, numberedTurns, user, wholeLog } from '../helpers'
import { expectNothingLost } from '../support/log-checker'

// The fault and branch tests lean on expectNothingLost; here it is shown to catch each way a log could lose an event.

/** A real log with a pin, a pass, an undo, a second pass and a rewind: S1 u1 a1 … u4 a4. */
async function everyBoundary() {
  const id = await numberedTurns(3, 'check')
  const pass = (body: unknown = {}) =>
    call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } }, ...(body as object) },
    })
  expect((await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: ['u1'] } })).status).toBe(200)
  const first = (await pass()).body
  expect(first.unchanged).toBe(false)
  expect((await call('POST', `/v1/sessions/${id}/compactions/${first.boundary.id}/undo`)).status).toBe(200)
  await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
  expect((await pass()).body.unchanged).toBe(false)
  expect((await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'u3', position: 'before' } })).status).toBe(200)
  return wholeLog(id)
}

const copy = (log: any[]) => structuredClone(log)
const find = (log: any[], test: (e: any) => boolean) => {
  const event = log.find(test)
  expect(event).toBeDefined()
  return event
}
const isPass = (e: any) => e.type === 'COMPACTION' && e.boundary.undoes === undefined

describe('the log checker (expectNothingLost)', () => {
  it('passes a real log holding every kind of boundary, and answers its view', async () => {
    const log = await everyBoundary()
    expect(log.map((e) => e.type[0]).join('')).toBe('MMMMMMMPCMMCMMCMMR')
    expect(expectNothingLost(log).view.map((e) => e.id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
  })

  it('catches a pass that drops an event without counting it', async () => {
    const log = copy(await everyBoundary())
    const pass = find(log, isPass)
    pass.boundary.preserved.pop()
    expect(() => expectNothingLost(log)).toThrow(/covered/)
  })

  it('catches a pass that covers a pinned event', async () => {
    const log = copy(await everyBoundary())
    const pass = find(log, isPass)
    pass.boundary.pinned = pass.boundary.pinned.filter((id: string) => id !== 'u1')
    pass.boundary.coveredEventCount++
    expect(() => expectNothingLost(log)).toThrow(/covers u1, which was pinned/)
  })

  it('catches an undo that does not bring back what its pass covered', async () => {
    const log = copy(await everyBoundary())
    const undo = find(log, (e) => e.type === 'COMPACTION' && e.boundary.undoes !== undefined)
    undo.boundary.preserved.splice(1, 1)
    expect(() => expectNothingLost(log)).toThrow(/without the pass it undoes/)
  })

  it('catches a rewind whose view is not the view as of its point, or miscounts what left', async () => {
    const wrongView = copy(await everyBoundary())
    find(wrongView, (e) => e.type === 'REWIND').boundary.preserved.push('u3')
    expect(() => expectNothingLost(wrongView)).toThrow(/the view as of before u3/)
    const miscounted = copy(await everyBoundary())
    find(miscounted, (e) => e.type === 'REWIND').boundary.coveredEventCount--
    expect(() => expectNothingLost(miscounted)).toThrow(/messages that left the view/)
  })
})
