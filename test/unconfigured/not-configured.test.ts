/** A deployment with no model: neither OPENAI_BASE_URL nor the AI binding. */
import { describe, expect, it } from 'vitest'
import { append, call, expectError, newSessionId, turn, twoTurns, user } from '../helpers'

describe('with no model configured', () => {
  it('a turn is 503 not_configured, naming the variables to set, and writes nothing', async () => {
    const id = newSessionId()
    await append(id, [user('before')])
    const result = await turn(id, { content: 'hi' })
    expectError(result, 503, 'not_configured')
    expect(result.body.error.message).toMatch(/OPENAI_BASE_URL/)
    expect(result.body.error.message).toMatch(/AI binding/)
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events).toHaveLength(1)
  })

  it('the Messages door answers 529 overloaded_error, with x-should-retry: false: sent again, it would fail again', async () => {
    const result = await call('POST', '/v1/messages', {
      body: { model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': newSessionId() },
    })
    expect(result.status, result.text).toBe(529)
    expect(result.body.error.type).toBe('overloaded_error')
    expect(result.headers.get('x-should-retry')).toBe('false')
  })

  it('a compaction that asks for a summarizer is 503 not_configured and writes nothing', async () => {
    const id = newSessionId()
    await append(id, twoTurns())
    const result = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: {} } },
    })
    expectError(result, 503, 'not_configured')
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events).toHaveLength(4)
    // A dry run is validated as a real pass is.
    const dry = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: {} }, dryRun: true },
    })
    expectError(dry, 503, 'not_configured')
  })

  it('compaction without a summarizer needs no model: it writes a boundary with no summary', async () => {
    const id = newSessionId()
    await append(id, [user('U1'), { message: { role: 'assistant', content: 'A1' } }, user('U2')])
    const result = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
    expect(result.body).toMatchObject({ unchanged: false, summary: [] })
  })
})
