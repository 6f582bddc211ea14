import { describe, expect, it } from 'vitest'
import { append, assistant, call, expectError, newSessionId, newTag, upstreamRequests, user, wholeLog } from '../helpers'

const compactNow = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/compact`, { body })
const ids = (events: { id: string }[]) => events.map((e) => e.id)

async function conversation(turns: number) {
  const id = newSessionId()
  for (let i = 0; i < turns; i++) await append(id, [user(`question ${i}`, `u${i}`), assistant(`answer ${i}`, `a${i}`)])
  return id
}

describe('a dry run', () => {
  it('answers the pass a real one would make, writing nothing and calling no summarizer', async () => {
    const id = await conversation(5)
    const before = await wholeLog(id)
    const tag = newTag()
    const strategy = { window: { lastTurns: 2 }, summarizer: { model: `echo#${tag}` } }
    const dry = await compactNow(id, { strategy, dryRun: true })
    expect(dry.status, dry.text).toBe(200)
    expect(dry.body).toMatchObject({ unchanged: false, reason: null, dryRun: true, boundary: null, summary: [], version: 10 })
    expect(ids(dry.body.covered)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2'])
    expect(ids(dry.body.preserved)).toEqual(['u3', 'a3', 'u4', 'a4'])
    // Saved as without a summary: the covered events' tokens.
    const coveredTokens = dry.body.covered.reduce((n: number, e: { tokens: number }) => n + e.tokens, 0)
    expect(dry.body.tokensEstimatedSaved).toBe(coveredTokens)
    expect(await wholeLog(id)).toEqual(before)
    expect(await upstreamRequests(tag)).toEqual([])
    // The real pass covers the same events.
    const real = await compactNow(id, { strategy })
    expect(ids(real.body.covered)).toEqual(ids(dry.body.covered))
    expect(real.body).not.toHaveProperty('dryRun')
  })

  it('follows the trigger, and is validated as a real pass is', async () => {
    const id = await conversation(2)
    expect((await compactNow(id, { trigger: { turnCount: 10 }, dryRun: true })).body).toMatchObject({
      unchanged: true,
      reason: 'trigger_not_fired',
    })
    expectError(await compactNow(id, { dryRun: 'yes' }), 400, 'invalid_request')
    expectError(await compactNow(newSessionId(), { dryRun: true }), 404, 'not_found')
  })
})

describe('a pass at the version previewed (expectedVersion)', () => {
  it('runs exactly the pass the dry run showed while the version is the same', async () => {
    const id = await conversation(4)
    const strategy = { window: { lastTurns: 1 } }
    const dry = (await compactNow(id, { strategy, dryRun: true })).body
    const real = await compactNow(id, { strategy, expectedVersion: dry.version })
    expect(real.status, real.text).toBe(200)
    expect(ids(real.body.covered)).toEqual(ids(dry.covered))
    expect(real.body.version).toBe(dry.version + 1)
  })

  it('writes nothing once the log has moved: a 409 version_conflict naming both versions', async () => {
    const id = await conversation(4)
    const strategy = { window: { lastTurns: 1 } }
    const dry = (await compactNow(id, { strategy, dryRun: true })).body
    await append(id, [user('one more', 'u9')])
    const before = await wholeLog(id)
    const stale = await compactNow(id, { strategy, expectedVersion: dry.version })
    expectError(stale, 409, 'version_conflict')
    expect(stale.body.error.message).toBe(`expected version ${dry.version}, but the session is at version ${dry.version + 1}`)
    expect(await wholeLog(id)).toEqual(before)
    expectError(await compactNow(id, { strategy, expectedVersion: -1 }), 400, 'invalid_request')
  })
})

describe('GET /v1/sessions/:id/compactions', () => {
  it('lists the boundaries newest first, with their summaries and the view tokens before and after', async () => {
    const id = await conversation(6)
    const first = await compactNow(id, { strategy: { window: { lastTurns: 4 } } })
    const second = await compactNow(id, { strategy: { window: { lastTurns: 2 }, summarizer: { model: `echo#${newTag()}` } } })
    const result = await call('GET', `/v1/sessions/${id}/compactions`)
    expect(result.status, result.text).toBe(200)
    const [newest, oldest] = result.body.compactions
    expect(result.body.compactions).toHaveLength(2)
    expect(result.body.nextBefore).toBeNull()
    expect(newest.boundary).toEqual(second.body.boundary)
    expect(ids(newest.summary)).toEqual(ids(second.body.summary))
    expect(oldest.boundary).toEqual(first.body.boundary)
    expect(oldest.summary).toEqual([])
    for (const entry of [newest, oldest]) {
      expect(entry.coveredEventCount).toBe(entry.boundary.boundary.coveredEventCount)
      expect(entry.tokensBefore - entry.tokensAfter).toBe(entry.tokensEstimatedSaved)
    }
    // The first pass started from the whole view; the second from what the first left.
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body
    expect(newest.tokensAfter).toBe(view.tokens)
    expect(oldest.tokensAfter).toBe(newest.tokensBefore)
  })

  it('pages with limit and before, and refuses bad values with a 400', async () => {
    const id = await conversation(6)
    for (const turns of [5, 4, 3]) await compactNow(id, { strategy: { window: { lastTurns: turns } } })
    const page1 = (await call('GET', `/v1/sessions/${id}/compactions?limit=2`)).body
    expect(page1.compactions).toHaveLength(2)
    const page2 = (await call('GET', `/v1/sessions/${id}/compactions?limit=2&before=${page1.nextBefore}`)).body
    expect(page2.compactions).toHaveLength(1)
    expect(page2.nextBefore).toBeNull()
    const seqs = [...page1.compactions, ...page2.compactions].map((c: { boundary: { seq: number } }) => c.boundary.seq)
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a))
    expect((await call('GET', `/v1/sessions/${id}/compactions?limit=1000`)).body.compactions).toHaveLength(3)
    for (const query of ['limit=0', 'limit=-1', 'limit=abc', 'before=0', 'before=-3', 'before=x']) {
      const bad = await call('GET', `/v1/sessions/${id}/compactions?${query}`)
      expectError(bad, 400, 'invalid_request')
      expect(bad.body.error.message).toContain(query.split('=')[0])
    }
    expectError(await call('GET', `/v1/sessions/${newSessionId()}/compactions`), 404, 'not_found')
    expect((await call('GET', `/v1/sessions/${await conversation(1)}/compactions`)).body).toEqual({
      compactions: [],
      nextBefore: null,
    })
  })
})
