import { afterAll, describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  expectError,
  expectEveryLogWhole,
  newSessionId,
  newTag,
  numberedTurns,
  system,
  user,
} from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const compactNow = (id: string, window: Record<string, number> = { lastTurns: 1 }) =>
  call('POST', `/v1/sessions/${id}/compact`, {
    body: { strategy: { window, summarizer: { model: `echo#${newTag()}` } } },
  })
const undo = (id: string, boundaryId: string, body?: unknown) =>
  call('POST', `/v1/sessions/${id}/compactions/${boundaryId}/undo`, body === undefined ? {} : { body })
const viewIds = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id)
const compactions = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions.map(
    (c: { boundary: { id: string; boundary: { undoes?: string } }; undone: boolean }) =>
      `${c.boundary.id}${c.boundary.boundary.undoes ? ` undoes ${c.boundary.boundary.undoes}` : ''}${c.undone ? ' (undone)' : ''}`,
  )

describe('POST /v1/sessions/:id/compactions/:boundaryId/undo', () => {
  it('brings back what the newest pass covered and takes its summary out: one COMPACTION appended, naming it', async () => {
    const id = await numberedTurns(3, 'undo')
    const before = await viewIds(id)
    const pass = (await compactNow(id)).body
    expect(pass.unchanged).toBe(false)
    const summary = pass.summary.map((e: { id: string }) => e.id)
    expect(await viewIds(id)).toEqual(['S1', ...summary, 'u3', 'a3'])
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    const undone = await undo(id, pass.boundary.id)
    expect(undone.status, undone.text).toBe(200)
    expect(undone.body).toMatchObject({
      version: pass.boundary.seq + summary.length + 3,
      boundary: {
        type: 'COMPACTION',
        boundary: { undoes: pass.boundary.id, summary: [], coveredEventCount: summary.length },
      },
    })
    expect(await viewIds(id)).toEqual([...before, 'u4', 'a4'])
    // Its tokens are the view's after and before it (the summary out, the covered turns back).
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body
    expect(undone.body.boundary.boundary.tokensAfter).toBe(view.tokens)
    expect(await compactions(id)).toEqual([
      `${undone.body.boundary.id} undoes ${pass.boundary.id}`,
      `${pass.boundary.id} (undone)`,
    ])
    // Nothing left to undo; the pass is undone already, the undo no pass; the next pass may compact again.
    expectError(await undo(id, pass.boundary.id), 409, 'compaction_superseded')
    expectError(await undo(id, undone.body.boundary.id), 404, 'not_found')
    const again = (await compactNow(id)).body
    expect(again.unchanged).toBe(false)
    expect(await viewIds(id)).toEqual(['S1', ...again.summary.map((e: { id: string }) => e.id), 'u4', 'a4'])
  })

  it('a clearing undone shows its results whole again; cleared again, cleared on every answer alike', async () => {
    const id = newSessionId()
    const result = (n: number) => ({
      message: {
        role: 'tool',
        content: null,
        toolResponses: [{ id: `c${n}`, name: 'read_file', data: `file ${n} `.repeat(300) }],
      },
    })
    const callOf = (n: number) => ({
      message: { role: 'assistant', content: null, toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: '{}' }] },
    })
    await append(id, [user('Read both files.'), callOf(1), result(1), callOf(2), result(2)])
    const clear = () => call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { clearToolResults: { keep: 1 } } } })
    const firstResult = async () => {
      const { events } = (await call('GET', `/v1/sessions/${id}/view`)).body
      return events[2].message.toolResponses[0].data as string
    }
    const whole = await firstResult()
    expect(whole).toBe('file 1 '.repeat(300))
    const cleared = await clear()
    expect(cleared.body.unchanged).toBe(false)
    const shown = cleared.body.preserved[2].message.toolResponses[0].data as string
    expect(shown).not.toBe(whole)
    expect(shown).toContain('c1')
    expect(await firstResult()).toBe(shown)
    expect((await undo(id, cleared.body.boundary.id)).status).toBe(200)
    expect(await firstResult()).toBe(whole)
    const again = await clear()
    expect(again.body.preserved[2].message.toolResponses[0].data).toBe(shown)
    expect(await firstResult()).toBe(shown)
  })

  it('counts its tokens as /view counts them: the latest system message only', async () => {
    const id = newSessionId('undo')
    await append(id, [system('Be brief.', 'S1'), user('question 1', 'u1'), assistant('answer 1', 'a1')])
    await append(id, [system('From now on, answer at length and in French, please.', 'S2')])
    await append(id, [user('question 2', 'u2'), assistant('answer 2', 'a2')])
    const viewTokens = async () => (await call('GET', `/v1/sessions/${id}/view`)).body.tokens
    const pass = (await compactNow(id)).body
    expect(pass.unchanged).toBe(false)
    const before = await viewTokens()
    // Undone, the pass's covered turn comes back, and S1 with it: superseded, it counts for nothing.
    const undone = await undo(id, pass.boundary.id)
    expect(undone.status, undone.text).toBe(200)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'S2', 'u2', 'a2'])
    const after = await viewTokens()
    expect(undone.body.boundary.boundary).toMatchObject({
      tokensBefore: before,
      tokensAfter: after,
      tokensEstimatedSaved: before - after,
    })
  })

  it('only the newest pass not undone: an older one is 409 until the newer is undone; both undone give the view as if neither ran', async () => {
    const id = await numberedTurns(3, 'undo')
    const original = await viewIds(id)
    const first = (await compactNow(id, { lastTurns: 2 })).body.boundary.id
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    const second = (await compactNow(id)).body.boundary.id
    const refused = await undo(id, first)
    expectError(refused, 409, 'compaction_superseded')
    expect(refused.body.error.message).toContain(`the newest is "${second}"`)
    expect((await undo(id, second)).status).toBe(200)
    expect((await undo(id, first)).status).toBe(200)
    expect(await viewIds(id)).toEqual([...original, 'u4', 'a4'])
    expect((await compactions(id)).filter((c: string) => c.endsWith('(undone)'))).toEqual([
      `${second} (undone)`,
      `${first} (undone)`,
    ])
  })

  it('an undo a rewind took off the lineage no longer counts: the pass is not undone and may be undone again', async () => {
    const id = await numberedTurns(3, 'undo')
    const pass = (await compactNow(id)).body.boundary.id
    await append(id, [user('question 4', 'u4')])
    expect((await undo(id, pass)).status).toBe(200)
    await append(id, [assistant('answer 4', 'a4')])
    // Back to u4: the view as of then, which is the pass's (the undo came after u4, so it is abandoned).
    const back = await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'u4' } })
    expect(back.status, back.text).toBe(200)
    expect(await compactions(id)).toEqual([expect.stringContaining(' undoes '), pass])
    expect((await undo(id, pass)).status).toBe(200)
    expect((await compactions(id)).at(-1)).toBe(`${pass} (undone)`)
  })

  it('says which field or why: unknown ids and messages are 404, a bad id or body 400, a stale version 409', async () => {
    const id = await numberedTurns(3, 'undo')
    const pass = (await compactNow(id)).body
    expectError(await undo(id, 'evt_nope'), 404, 'not_found')
    expectError(await undo(id, 'u1'), 404, 'not_found')
    expectError(await undo(id, 'bad id!'), 400, 'invalid_request')
    expectError(await undo(id, pass.boundary.id, { expectedVersion: 1 }), 409, 'version_conflict')
    expectError(await undo(id, pass.boundary.id, { extra: true }), 400, 'invalid_request')
    expectError(await undo(newSessionId(), pass.boundary.id), 404, 'not_found')
    expect(await viewIds(id)).toEqual(['S1', ...pass.summary.map((e: { id: string }) => e.id), 'u3', 'a3'])
    expect((await undo(id, pass.boundary.id, { expectedVersion: pass.summary.at(-1).seq })).status).toBe(200)
  })
})
