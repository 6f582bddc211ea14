import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterAll, describe, expect, it } from 'vitest'
import { sessionStub } from '../../src/object/address'
import {
  append,
  assistant,
  call,
  expectError,
  expectEveryLogWhole,
  newSessionId,
  newTag,
  numberedTurns,
  releaseUpstream,
  system,
  turn,
  until,
  untilUpstreamReceived,
  user,
  wholeLog,
} from '../helpers'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

const rewind = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/rewind`, { body })
const viewIds = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id)
const compactNow = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/compact`, { body })

const conversation = (turns: number) => numberedTurns(turns, 'rw')

describe('POST /v1/sessions/:id/rewind', () => {
  it('takes the view back to just before a message, deleting nothing: one REWIND appended, what left the lineage counted', async () => {
    const id = await conversation(3)
    const before = await wholeLog(id)
    const result = await rewind(id, { to: 'u2', position: 'before' })
    expect(result.status, result.text).toBe(200)
    expect(result.body).toMatchObject({ abandoned: 4, version: 8 })
    expect(result.body.rewind).toMatchObject({
      type: 'REWIND',
      seq: 8,
      synthetic: false,
      tokens: 0,
      rewind: { to: 'u2', position: 'before', reason: 'api' },
      boundary: { pinned: [], summary: [], preserved: ['S1', 'u1', 'a1'], coveredEventCount: 4 },
    })
    expect(result.body.rewind.boundary.tokensEstimatedSaved).toBeGreaterThan(0)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1'])
    // The log keeps everything, the REWIND after it, as the answer showed it.
    const log = await wholeLog(id)
    expect(log.slice(0, 7)).toEqual(before)
    expect(log[7]).toEqual(result.body.rewind)
    // A new turn goes on from the restored view.
    await append(id, [user('question 2, edited', 'u2b')])
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2b'])
  })

  it('counts tokensEstimatedSaved as /view counts tokens: the latest system message only', async () => {
    const id = newSessionId('rw')
    await append(id, [system('Be brief.', 'S1'), user('question 1', 'u1'), assistant('answer 1', 'a1')])
    await append(id, [system('From now on, answer at length and in French, please.', 'S2'), user('question 2', 'u2')])
    const viewTokens = async () => (await call('GET', `/v1/sessions/${id}/view`)).body.tokens
    const before = await viewTokens()
    // Back before S2: S1 is the latest system message again, S2 and u2 leave.
    const result = await rewind(id, { to: 'S2', position: 'before' })
    expect(result.status, result.text).toBe(200)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1'])
    const after = await viewTokens()
    expect(result.body.rewind.boundary).toMatchObject({
      tokensBefore: before,
      tokensAfter: after,
      tokensEstimatedSaved: before - after,
    })
  })

  it('brings an abandoned branch back from its tip, exactly as it was', async () => {
    const id = await conversation(2)
    await rewind(id, { to: 'u2', position: 'before' })
    await append(id, [user('other question', 'u2b'), assistant('other answer', 'a2b')])
    const back = await rewind(id, { to: 'a2', position: 'at' })
    expect(back.body.abandoned).toBe(2) // u2b, a2b
    expect(back.body.rewind.boundary.coveredEventCount).toBe(2)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
    // And the other branch back again.
    expect((await rewind(id, { to: 'a2b' })).body.abandoned).toBe(2)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2b', 'a2b'])
  })

  it('across a compaction restores the view of that time: the covered turns back, the summary out', async () => {
    const id = await conversation(3)
    const viewThen = await viewIds(id)
    const pass = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    expect(pass.body.unchanged).toBe(false)
    const summary = pass.body.summary.map((e: { id: string }) => e.id)
    expect(await viewIds(id)).toEqual(['S1', ...summary, 'u3', 'a3'])
    const tokensNow = (await call('GET', `/v1/sessions/${id}/view`)).body.tokens
    const back = await rewind(id, { to: 'a3' })
    // The pass and its summary come after the point: off the lineage (the summary's two messages).
    expect(back.body.abandoned).toBe(summary.length)
    expect(await viewIds(id)).toEqual(viewThen)
    const { boundary } = back.body.rewind
    expect(boundary.coveredEventCount).toBe(summary.length) // the summary left the view
    expect([boundary.tokensBefore, boundary.tokensAfter]).toEqual([
      tokensNow,
      (await call('GET', `/v1/sessions/${id}/view`)).body.tokens,
    ])
    expect(boundary.tokensEstimatedSaved).toBe(boundary.tokensBefore - boundary.tokensAfter)
    // A rewind to a point after the pass keeps the pass's view: pinned and summary as it named them.
    const after = await rewind(id, { to: summary.at(-1), position: 'at' })
    expectError(after, 400, 'invalid_request') // a summary event is no point
    await append(id, [user('question 4', 'u4')])
    expect(await viewIds(id)).toEqual([...viewThen, 'u4'])
  })

  it('to a point after a compaction: the pass’s view as it was, its parts named as the pass named them', async () => {
    const id = await conversation(3)
    const pass = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    const summary = pass.body.summary.map((e: { id: string }) => e.id)
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    const back = await rewind(id, { to: 'u4', position: 'before' })
    expect(back.body.rewind.boundary).toMatchObject({ pinned: ['S1'], summary, preserved: ['u3', 'a3'], coveredEventCount: 2 })
    expect(await viewIds(id)).toEqual(['S1', ...summary, 'u3', 'a3'])
    // A later pass summarizes on top of the prior summary: still a summary.
    const again = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    expect(again.body.unchanged, again.text).toBe(true) // one turn only: nothing to cover
  })

  it('writes nothing when the view would not change (expectedVersion then unchecked); to null empties the view', async () => {
    const id = await conversation(1)
    const same = await rewind(id, { to: 'a1', expectedVersion: 0 })
    expect(same.body).toEqual({ rewind: null, abandoned: 0, version: 3 })
    expect(await wholeLog(id)).toHaveLength(3)
    const empty = await rewind(id, { to: null })
    expect(empty.body).toMatchObject({ abandoned: 3, version: 4, rewind: { rewind: { to: null, position: 'at' } } })
    expect(await viewIds(id)).toEqual([])
  })

  it('checks expectedVersion when it writes: stale → 409 version_conflict, nothing written', async () => {
    const id = await conversation(2)
    const stale = await rewind(id, { to: 'u2', position: 'before', expectedVersion: 3 })
    expectError(stale, 409, 'version_conflict')
    expect(await wholeLog(id)).toHaveLength(5)
    expect((await rewind(id, { to: 'u2', position: 'before', expectedVersion: 5 })).status).toBe(200)
  })

  it('refuses a point that is no message of the conversation, naming `to`; an unknown session is a 404', async () => {
    const id = await conversation(2)
    const pass = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    const cases: [unknown, RegExp][] = [
      [{ to: 'nope' }, /^to: no event "nope" in this session$/],
      [{ to: pass.body.boundary.id }, /^to: ".*" is a COMPACTION event, not a message$/],
      [{ to: pass.body.summary[0].id }, /^to: ".*" is a summary event written by compaction/],
      [{}, /^to: /],
      [{ to: 'u1', position: 'after' }, /^position: /],
      [{ to: 'u1', extra: true }, /extra/],
    ]
    for (const [body, message] of cases) {
      const result = await rewind(id, body)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toMatch(message)
    }
    expect(await wholeLog(id)).toHaveLength(5 + 1 + pass.body.summary.length)
    expectError(await rewind(newSessionId(), { to: null }), 404, 'not_found')
  })

  it('waits for a running turn, never interleaving with it: the REWIND comes after the turn’s events', async () => {
    const id = await conversation(1)
    const tag = newTag()
    const running = turn(id, { content: 'question 2', model: `hold#${tag}` })
    await untilUpstreamReceived(tag)
    const rewound = rewind(id, { to: 'u1', position: 'before' })
    await until(async () => (await call('GET', `/v1/sessions/${id}/context`)).body.queued === 1, 'the rewind queued')
    await releaseUpstream(tag)
    expect((await running).status).toBe(200)
    const result = await rewound
    expect(result.body.abandoned).toBe(4) // u1 a1 and the turn's two
    const log = await wholeLog(id)
    expect(log.map((e: { type: string }) => e.type)).toEqual(['MESSAGE', 'MESSAGE', 'MESSAGE', 'MESSAGE', 'MESSAGE', 'REWIND'])
    expect(await viewIds(id)).toEqual(['S1'])
  })

  it('is the same view after the object is evicted and reloads it from the REWIND', async () => {
    const id = await conversation(3)
    await rewind(id, { to: 'u2', position: 'before' })
    await append(id, [user('question 2b', 'u2b')])
    await abortAllDurableObjects()
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2b'])
    const context = (await call('GET', `/v1/sessions/${id}/context`)).body
    expect(context.events).toEqual({ log: 9, view: 4, covered: 4 }) // u2 a2 u3 a3 outside the view; the REWIND no message
  })

  it('over a clearing, then a pass before its first write: every result counted at its size, and the view as the fresh view counts it', async () => {
    const id = newSessionId()
    const group = (n: number) => [
      {
        id: `C${n}`,
        message: { role: 'assistant', content: null, toolCalls: [{ id: `c${n}`, name: 'read_file', arguments: '{}' }] },
      },
      {
        id: `T${n}`,
        message: {
          role: 'tool',
          content: null,
          toolResponses: [{ id: `c${n}`, name: 'read_file', data: `file ${n} `.repeat(120) }],
        },
      },
    ]
    await append(id, [
      user('Read the files.', 'u1'),
      ...group(1),
      ...group(2),
      ...group(3),
      user('next', 'u2'),
      assistant('ok', 'a2'),
    ])
    const clearing = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { clearToolResults: { keep: 1 } } } })
    expect(clearing.body.boundary.boundary.cleared.map((entry: { eventId: string }) => entry.eventId)).toEqual(['T1', 'T2'])
    await append(id, [user('more', 'u3'), assistant('ok', 'a3')])
    await rewind(id, { to: 'u3', position: 'at' })
    // An edit back over the clearing whose own clearing keeps T2: it runs before the turn writes.
    const edited = await turn(id, {
      content: 'the question, edited',
      rewind: { to: 'u2', position: 'at' },
      // A 2,048-token window: the fit check clears before the model is called.
      model: 'echo#small',
      compaction: { trigger: { tokenCount: 1_000_000_000 }, strategy: { clearToolResults: { keep: 2 } } },
    })
    expect(edited.status, edited.text).toBe(200)
    const counted = async () => {
      const { tokens, events } = (await call('GET', `/v1/sessions/${id}/view`)).body
      return { tokens, each: events.map((event: { id: string; tokens: number }) => `${event.id} ${event.tokens}`) }
    }
    const cached = await counted()
    const sum = cached.each.reduce((total: number, entry: string) => total + Number(entry.split(' ')[1]), 0)
    expect(cached.tokens).toBe(sum)
    // The view as loaded afresh from its newest boundary.
    await abortAllDurableObjects()
    expect(await counted()).toEqual(cached)
  })

  it('is in the OpenAPI document', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).body
    expect(Object.keys(doc.paths['/v1/sessions/{id}/rewind'])).toEqual(['post'])
    expect(doc.components.schemas.Event.properties.type.enum).toEqual(['MESSAGE', 'COMPACTION', 'REWIND', 'PINS'])
  })
})

describe('search and recall over the lineage', () => {
  it('finds lineage events only, unless branches=all adds the abandoned ones (covered and abandoned)', async () => {
    const id = newSessionId('rw')
    await append(id, [user('the avocado question', 'q1'), assistant('avocado answer one', 'r1')])
    await rewind(id, { to: 'q1' })
    await append(id, [assistant('avocado answer two', 'r2')])
    const search = async (query: string) => (await call('GET', `/v1/sessions/${id}/search?q=avocado${query}`)).body.hits
    const brief = (hits: { event: { id: string }; covered: boolean; abandoned: boolean }[]) =>
      hits.map((hit) => `${hit.event.id}${hit.covered ? ' covered' : ''}${hit.abandoned ? ' abandoned' : ''}`).sort()
    expect(brief(await search(''))).toEqual(['q1', 'r2'])
    expect(brief(await search('&branches=all'))).toEqual(['q1', 'r1 covered abandoned', 'r2'])
    expect(brief(await search('&scope=view&branches=all'))).toEqual(['q1', 'r1 covered abandoned', 'r2'])
    expect(brief(await search('&scope=covered'))).toEqual([])
    expectError(await call('GET', `/v1/sessions/${id}/search?q=avocado&branches=some`), 400, 'invalid_request')
  })

  it('recall_history never returns an abandoned event', async () => {
    const id = newSessionId('rw')
    await append(id, [user('remember the code word zebra', 'q1'), assistant('zebra noted', 'r1')])
    await rewind(id, { to: null })
    await append(id, [user('something else', 'q2'), assistant('fine', 'r2')])
    const tag = newTag()
    const result = await turn(id, {
      content: 'What was the code word?',
      model: `recall-zebra#${tag}`,
      recall: true,
      compaction: false,
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.reply.message.content).not.toContain('zebra noted')
    expect(result.body.reply.message.content).not.toContain('remember the code word')
  })
})

describe('GET /v1/sessions/:id/branches', () => {
  it('lists each run a rewind abandoned, newest first, with what brings it back; /context counts them', async () => {
    const id = await conversation(3)
    const first = (await rewind(id, { to: 'u2', position: 'before' })).body.rewind
    const listed = await call('GET', `/v1/sessions/${id}/branches`)
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body).toEqual({
      branches: [
        {
          rewindEventId: first.id,
          at: { to: 'u2', position: 'before' },
          parentEventId: 'a1',
          firstEventId: 'u2',
          tipEventId: 'a3',
          events: 4,
          headline: 'question 2',
          abandonedAt: first.timestamp,
          onLineage: false,
          parentOnLineage: true,
        },
      ],
      nextBefore: null,
    })
    // Bringing it back from its tip abandons nothing (nothing was written since): no new branch.
    expect((await rewind(id, { to: 'a3' })).body.abandoned).toBe(0)
    expect(await viewIds(id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2', 'u3', 'a3'])
    // An edit of u3 then a rewind back to u1: two more branches.
    await turn(id, { content: 'question 3, edited', rewind: { to: 'u3', position: 'before' }, compaction: false })
    await rewind(id, { to: 'a1' })
    const page = (await call('GET', `/v1/sessions/${id}/branches?limit=2`)).body
    expect(page.branches.map((b: { headline: string; events: number }) => [b.headline, b.events])).toEqual([
      ['question 2', 4], // u2 a2 and the edit's two
      ['question 3', 2],
    ])
    const rest = (await call('GET', `/v1/sessions/${id}/branches?limit=2&before=${page.nextBefore}`)).body
    expect(rest.branches.map((b: { headline: string }) => b.headline)).toEqual(['question 2'])
    expect(rest.nextBefore).toBeNull()
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.branches).toBe(3)
    expectError(await call('GET', `/v1/sessions/${id}/branches?before=0`), 400, 'invalid_request')
    expectError(await call('GET', `/v1/sessions/${newSessionId()}/branches`), 404, 'not_found')
  })

  it('groups the alternatives at a point by parentEventId and says which one is the conversation now', async () => {
    const id = newSessionId('rw')
    await append(id, [user('hello', 'u1'), assistant('first try', 'x1')])
    await rewind(id, { to: 'u1' })
    await append(id, [assistant('second try', 'x2')])
    await rewind(id, { to: 'u1' })
    await append(id, [assistant('third try', 'x3')])
    const list = async () =>
      (await call('GET', `/v1/sessions/${id}/branches`)).body.branches.map(
        (b: { firstEventId: string; parentEventId: string | null; onLineage: boolean; parentOnLineage: boolean }) =>
          `${b.firstEventId} from ${b.parentEventId}${b.onLineage ? ' (now)' : ''}${b.parentOnLineage ? '' : ' (nested)'}`,
      )
    expect(await list()).toEqual(['x2 from u1', 'x1 from u1'])
    // Bringing the first try back: the third becomes a branch, the first is on the lineage again.
    await rewind(id, { to: 'x1' })
    expect(await list()).toEqual(['x3 from u1', 'x2 from u1', 'x1 from u1 (now)'])
    // Back to the start: the whole conversation is a branch, the tries under it nested.
    await rewind(id, { to: null })
    expect(await list()).toEqual(['u1 from null', 'x3 from u1 (nested)', 'x2 from u1 (nested)', 'x1 from u1 (nested)'])
    // Branches recorded before their parent was kept (schema v4) are listed the same: it is found on the lineage they left.
    await runInDurableObject(sessionStub(env, 'alice', id), async (_instance, state) => {
      state.storage.sql.exec('UPDATE branches SET parent_id = NULL, parent_seq = NULL')
    })
    expect(await list()).toEqual(['u1 from null', 'x3 from u1 (nested)', 'x2 from u1 (nested)', 'x1 from u1 (nested)'])
  })

  it('heads a branch by what the conversation said, not by the summary of a pass the rewind took off', async () => {
    const id = await conversation(3)
    const pass = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    expect(pass.body.unchanged).toBe(false)
    await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
    // Back to before the pass: its summary, question 4 and its answer leave, in that order in the log.
    expect((await rewind(id, { to: 'a3' })).body.abandoned).toBe(pass.body.summary.length + 2)
    const [branch] = (await call('GET', `/v1/sessions/${id}/branches`)).body.branches
    expect(branch).toMatchObject({ firstEventId: pass.body.summary[0].id, tipEventId: 'a4', headline: 'question 4' })
  })

  it('cuts a long headline at 200 characters (characters, not UTF-16 units)', async () => {
    const id = newSessionId('rw')
    const long = 'é'.repeat(250)
    await append(id, [user('start', 's1'), assistant(long, 'l1')])
    await rewind(id, { to: 's1' })
    const [branch] = (await call('GET', `/v1/sessions/${id}/branches`)).body.branches
    expect(branch.headline).toBe('é'.repeat(200))
    expect(branch).toMatchObject({ firstEventId: 'l1', tipEventId: 'l1', events: 1 })
  })
})

describe('POST /v1/sessions/:id/fork', () => {
  const fork = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/fork`, { body })

  it('copies the view as of a message: the same ids, messages and timestamps; the source unchanged; forkedFrom on the new session', async () => {
    const id = await conversation(3)
    const before = await wholeLog(id)
    const target = newSessionId('fork')
    const result = await fork(id, { id: target, at: 'a2', metadata: { branch: 'b' } })
    expect(result.status, result.text).toBe(201)
    expect(result.body).toMatchObject({
      id: target,
      metadata: { branch: 'b' },
      version: 5,
      forkedFrom: { sessionId: id, eventId: 'a2', position: 'at', version: 7 },
    })
    const copied = await wholeLog(target)
    expect(copied).toEqual(before.slice(0, 5))
    expect(await viewIds(target)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
    expect(await wholeLog(id)).toEqual(before)
    expect((await call('GET', `/v1/sessions/${id}`)).body.forkedFrom).toBeNull()
    expect((await call('GET', `/v1/sessions/${target}`)).body.forkedFrom).toEqual(result.body.forkedFrom)
    // The fork goes on its own way.
    await append(target, [user('only in the fork', 'f1')])
    expect(await wholeLog(id)).toEqual(before)
  })

  it('keeps a summary a summary, and a pending tool call pending; copies the calibration and the metadata by default', async () => {
    const id = newSessionId('fork')
    await append(id, [user('q1', 'u1'), assistant('r1', 'a1'), user('q2', 'u2'), assistant('r2', 'a2')])
    const pass = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } } })
    await append(id, [
      user('weather?', 'u3'),
      {
        id: 'c3',
        message: { role: 'assistant', content: null, toolCalls: [{ id: 'call_9', name: 'weather', arguments: '{}' }] },
      },
    ])
    await call('PATCH', `/v1/sessions/${id}`, { body: { metadata: { team: 'blue' } } })
    const target = (await fork(id, {})).body
    expect(target.forkedFrom).toMatchObject({ sessionId: id, eventId: 'c3', position: 'at' })
    expect(target.metadata).toEqual({ team: 'blue' })
    const events = (await call('GET', `/v1/sessions/${target.id}/view`)).body.events
    const summary = pass.body.summary.map((e: { id: string }) => e.id)
    expect(events.map((e: { id: string }) => e.id)).toEqual([...summary, 'u2', 'a2', 'u3', 'c3'])
    expect(events.filter((e: { synthetic: boolean }) => e.synthetic).map((e: { id: string }) => e.id)).toEqual(summary)
    const [source, copy] = await Promise.all(
      [id, target.id].map(async (s) => (await call('GET', `/v1/sessions/${s}/context`)).body),
    )
    expect(copy.pendingToolCalls).toEqual(['call_9'])
    expect(copy.calibration).toEqual(source.calibration)
    expect(copy.tokens).toEqual(source.tokens)
  })

  it('without at: forkedFrom names the log’s newest event at the fork, whatever its type, and the version it ends', async () => {
    const id = await conversation(2) // S1 u1 a1 u2 a2
    const pinned = (await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: ['u1'] } })).body.pins
    const afterPins = (await fork(id, {})).body
    expect(afterPins.forkedFrom).toEqual({ sessionId: id, eventId: pinned.id, position: 'at', version: 6 })
    // The fork holds the view, not the PINS event: u1 is pinned in it all the same.
    expect(await viewIds(afterPins.id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
    expect((await call('GET', `/v1/sessions/${afterPins.id}/context`)).body.pinned).toEqual(['u1'])
    const back = (await rewind(id, { to: 'a1' })).body.rewind
    const afterRewind = (await fork(id, {})).body
    expect(afterRewind.forkedFrom).toEqual({ sessionId: id, eventId: back.id, position: 'at', version: 7 })
    expect(await viewIds(afterRewind.id)).toEqual(['S1', 'u1', 'a1'])
    // A session with no event yet: no event to name.
    const empty = newSessionId('fork')
    await call('POST', '/v1/sessions', { body: { id: empty } })
    const ofEmpty = await fork(empty, {})
    expect(ofEmpty.status, ofEmpty.text).toBe(201)
    expect(ofEmpty.body.forkedFrom).toEqual({ sessionId: empty, eventId: null, position: 'at', version: 0 })
  })

  it('refuses an id that exists (409 session_exists), a point that is no message (400 naming at); an unknown source is a 404', async () => {
    const id = await conversation(1)
    const taken = await conversation(1)
    expectError(await fork(id, { id: taken }), 409, 'session_exists')
    expectError(await fork(id, { id }), 409, 'session_exists')
    const unknown = await fork(id, { at: 'nope' })
    expectError(unknown, 400, 'invalid_request')
    expect(unknown.body.error.message).toBe('at: no event "nope" in this session')
    expectError(await fork(id, { position: 'before' }), 400, 'invalid_request')
    expectError(await fork(newSessionId(), {}), 404, 'not_found')
  })
})
