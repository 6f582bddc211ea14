import { describe, expect, it } from 'vitest'
import { append, assistant, call, newSessionId, turn, until, user } from '../helpers'

let users = 0
const newUser = () => `usage-${Date.now().toString(36)}-${++users}`
const today = () => new Date().toISOString().slice(0, 10)
const report = async (as: string, query = '') => (await call('GET', `/v1/usage${query}`, { user: as })).body.usage

describe('usage', () => {
  it('counts per day and model what the upstreams reported: turns, prompt, cached, completion and summary tokens', async () => {
    const as = newUser()
    const id = newSessionId('u')
    const cached = await turn(id, { content: 'first', model: 'cached-40' }, as)
    expect(cached.body.usage).toMatchObject({ promptTokens: 100, cachedPromptTokens: 40 })
    const counted = await turn(id, { content: 'second', model: 'usage-7' }, as)
    expect(counted.body.usage.promptTokens).toBe(7)
    // Neither a failed call nor a retry answered from storage is a turn.
    expect((await turn(id, { content: 'third', model: 'fail-500' }, as)).status).toBe(502)
    const once = await turn(id, { id: `t-${id}`, content: 'once', model: 'usage-9' }, as)
    const again = await turn(id, { id: `t-${id}`, content: 'once', model: 'usage-9' }, as)
    expect(again.body.reply.id).toBe(once.body.reply.id)
    const summary = await call('POST', `/v1/sessions/${id}/compact`, {
      user: as,
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: 'usage-11' } } },
    })
    expect(summary.status).toBe(200)
    await until(async () => (await report(as)).length === 4, 'four models counted')
    const rows = await report(as)
    const row = (model: string) => rows.find((r: { model: string }) => r.model === model)
    expect(row('cached-40')).toEqual({
      date: today(),
      model: 'cached-40',
      turns: 1,
      promptTokens: 100,
      cachedPromptTokens: 40,
      completionTokens: cached.body.usage.completionTokens,
      summaryTokens: 0,
      totalTokens: 100 + cached.body.usage.completionTokens,
    })
    expect(row('usage-7')).toMatchObject({ turns: 1, promptTokens: 7, cachedPromptTokens: 0 })
    expect(row('usage-9')).toMatchObject({ turns: 1, promptTokens: 9 })
    // A summary's tokens are summary tokens only (its total: prompt 11 and the completion).
    expect(row('usage-11')).toMatchObject({ turns: 0, promptTokens: 0, completionTokens: 0 })
    expect(row('usage-11').summaryTokens).toBeGreaterThan(11)
    expect(row('usage-11').totalTokens).toBe(row('usage-11').summaryTokens)
    expect(rows.some((r: { model: string }) => r.model === 'fail-500')).toBe(false)
    // The session's totals in /context are the sum of its rows.
    const context = (await call('GET', `/v1/sessions/${id}/context`, { user: as })).body
    const sum = (field: string) => rows.reduce((total: number, r: Record<string, number>) => total + r[field]!, 0)
    expect(context.usage).toEqual({
      turns: 3,
      promptTokens: sum('promptTokens'),
      cachedPromptTokens: 40,
      completionTokens: sum('completionTokens'),
      summaryTokens: sum('summaryTokens'),
      totalTokens: sum('totalTokens'),
    })
  })

  it('counts a door request the model answered without storing it (a client’s auxiliary request)', async () => {
    const as = newUser()
    const id = newSessionId('u')
    await append(id, [user('q'), assistant('a')], as)
    const aside = await call('POST', '/v1/messages', {
      user: as,
      body: { model: 'usage-13', max_tokens: 100, messages: [{ role: 'user', content: 'A title, please' }] },
      headers: { 'X-Session-Id': id, 'anthropic-version': '2023-06-01', 'x-claude-code-request-class': 'auxiliary' },
    })
    expect(aside.status, aside.text).toBe(200)
    expect(aside.headers.get('X-Stored')).toBe('false')
    await until(async () => (await report(as)).length === 1, 'the request counted')
    expect((await report(as))[0]).toMatchObject({ model: 'usage-13', turns: 1, promptTokens: 13 })
  })

  it('answers only the days asked for, per user, and refuses a bad date naming it', async () => {
    const as = newUser()
    await append(newSessionId('u'), [user('q'), assistant('a')], as)
    await turn(newSessionId('u'), { content: 'q', model: 'usage-5' }, as)
    await until(async () => (await report(as)).length === 1, 'the turn counted')
    expect(await report(as, `?from=${today()}&to=${today()}`)).toHaveLength(1)
    expect(await report(as, '?from=2020-01-01&to=2020-01-31')).toEqual([])
    expect(await report(newUser())).toEqual([])
    for (const query of ['?from=2026-13-01', '?from=2026-02-30', '?to=yesterday', '?from=2026-12-02&to=2026-12-01']) {
      const answer = await call('GET', `/v1/usage${query}`, { user: as })
      expect(answer.status, query).toBe(400)
      expect(answer.body.error.message).toMatch(/from|to/)
    }
  })
})
