/** A deployment whose MODEL_CONTEXT_TOKENS is not a JSON object of positive integers (see vitest.config.ts). */
import { describe, expect, it } from 'vitest'
import { append, call, expectError, newSessionId, turn, twoTurns } from '../helpers'

describe('with a bad MODEL_CONTEXT_TOKENS', () => {
  it('every turn and every summarizing pass is 503 not_configured naming the variable, and nothing is written', async () => {
    const id = newSessionId()
    await append(id, twoTurns())
    const turned = await turn(id, { content: 'hi' })
    expectError(turned, 503, 'not_configured')
    expect(turned.body.error.message).toContain('MODEL_CONTEXT_TOKENS')
    const completed = await call('POST', '/v1/chat/completions', {
      body: { model: 'echo', messages: [{ role: 'user', content: 'hi' }] },
      headers: { 'X-Session-Id': id },
    })
    expectError(completed, 503, 'not_configured')
    const summarized = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: {} } },
    })
    expectError(summarized, 503, 'not_configured')
    expect(summarized.body.error.message).toContain('MODEL_CONTEXT_TOKENS')
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events).toHaveLength(4)
    // A pass without a summary needs no model: it still works.
    expect(
      (await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })).body.unchanged,
    ).toBe(false)
  })
})
