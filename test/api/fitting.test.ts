import { abortAllDurableObjects } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { append, assistant, call, expectError, newSessionId, newTag, turn, upstreamRequests, user } from '../helpers'

/** A history of `turns` turns of about `tokens` estimated tokens each. */
async function history(id: string, turns: number, tokens: number) {
  const words = 'plenty of words in this sentence '.repeat(Math.ceil(tokens / 7))
  for (let i = 0; i < turns; i++) await append(id, [user(`${i}: ${words}`), assistant(`ok ${i}`)])
}

/** Compaction only to make room (its trigger never fires after a turn). */
const onlyToFit = { trigger: { tokenCount: 1_000_000_000 }, strategy: { window: { lastTurns: 2 } } }

describe('calibration', () => {
  // The fake's `usage-<n>` model reports n prompt tokens whatever the prompt: the test names what
  // the model counts, and each turn's answer states what the service estimated (context.promptTokens).

  it('a turn’s report sets the ratio to reported ÷ estimated, and a model counting more gets the same view compacted first', async () => {
    const counts = { more: 10_000, fewer: 3_000 } // about twice our estimate of the prompt, and under it
    const first: Record<string, any> = {}
    const second: Record<string, any> = {}
    for (const [name, n] of Object.entries(counts)) {
      const id = newSessionId()
      await history(id, 8, 650) // ~4,600 estimated tokens: fits 7,168, not twice over
      first[name] = (await turn(id, { content: 'q0', model: `usage-${n}`, compaction: onlyToFit })).body.context
      second[name] = (await turn(id, { content: 'q1', model: `usage-${n}`, compaction: onlyToFit })).body.context
      // Before any report our estimate is taken as the model's count: the view fits as it is.
      expect(first[name].compactions).toEqual([])
      // The first report is taken as it is.
      expect(first[name].calibration).toEqual({ ratio: expect.closeTo(n / first[name].promptTokens, 9), samples: 1 })
    }
    // The same view and one more turn: as the first model counts it, it no longer fits.
    expect(second.more.compactions.length).toBeGreaterThan(0)
    expect(second.more.promptTokens * first.more.calibration.ratio).toBeLessThanOrEqual(second.more.budget)
    expect(second.fewer.compactions).toEqual([])
  })

  it('moves toward later reports: five steady ones land within 10% of theirs, and it is kept when the object restarts', async () => {
    const id = newSessionId()
    await history(id, 3, 300) // ~900 estimated tokens: fits at any ratio within the bounds (0.5 to 3)
    const turnReporting = async (n: number, content: string) =>
      (await turn(id, { content, model: `usage-${n}`, compaction: onlyToFit })).body.context
    const first = await turnReporting(1_000, 'q0') // about what we estimate
    let last = first
    for (let i = 1; i <= 5; i++) last = await turnReporting(2_000, `q${i}`) // about twice
    const target = 2_000 / last.promptTokens
    expect(target - first.calibration.ratio).toBeGreaterThan(0.5) // far from where it started
    expect(last.calibration.samples).toBe(6)
    expect(Math.abs(last.calibration.ratio - target)).toBeLessThan(0.1 * target)
    // Stored with the session: after a restart the session reports the same calibration.
    await abortAllDurableObjects()
    expect((await call('GET', `/v1/sessions/${id}/context`)).body.calibration).toEqual(last.calibration)
  })
})

describe('MODEL_CONTEXT_TOKENS', () => {
  it('a model with a small entry gets a small budget: its own context less the reply tokens', async () => {
    // The test Worker sets MODEL_CONTEXT_TOKENS = {"echo#small": 2048} (vitest.config.ts).
    const id = newSessionId()
    const small = await turn(id, { content: 'Hi', model: 'echo#small', compaction: false })
    expect(small.body.context.budget).toBe(2048 - 1024)
    const other = await turn(id, { content: 'Hi', model: `echo#${newTag()}`, compaction: false })
    expect(other.body.context.budget).toBe(8192 - 1024)
    // A history that fits 8k does not fit the small model: 413 without compaction, nothing written.
    const long = newSessionId()
    await history(long, 3, 500)
    expectError(await turn(long, { content: 'Hi', model: 'echo#small', compaction: false }), 413, 'context_overflow')
    expect((await turn(long, { content: 'Hi', model: 'echo#small', compaction: onlyToFit })).status).toBe(200)
  })
})

describe('contextFraction', () => {
  it('as a trigger and a window on /compact: a fraction of the configured chat model’s budget', async () => {
    const id = newSessionId()
    await history(id, 6, 500)
    const notYet = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { trigger: { contextFraction: 0.9 }, strategy: { window: { lastTurns: 1 } } },
    })
    expect(notYet.body).toMatchObject({ unchanged: true, reason: 'trigger_not_fired' })
    const result = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { trigger: { contextFraction: 0.3 }, strategy: { window: { contextFraction: 0.1 } } },
    })
    expect(result.body.unchanged).toBe(false)
    // 10% of 7,168 is a budget of 716 estimated tokens: the newest turn alone (~520) fits, two do not.
    const view = (await call('GET', `/v1/sessions/${id}/view`)).body
    expect(view.tokens).toBeLessThanOrEqual(716)
    expect(view.turns).toBe(1)
  })

  it('out of range is a 400 wherever a trigger or window is taken, and a policy keeps a valid one', async () => {
    const id = newSessionId()
    await history(id, 1, 10)
    for (const f of [0, -0.5, 1.01, '0.5', null]) {
      for (const body of [{ trigger: { contextFraction: f } }, { strategy: { window: { contextFraction: f } } }]) {
        const result = await call('POST', `/v1/sessions/${id}/compact`, { body })
        expectError(result, 400, 'invalid_request')
        expect(result.body.error.message).toContain('contextFraction')
      }
      expectError(
        await turn(id, { content: 'x', compaction: { trigger: { contextFraction: f }, strategy: {} } }),
        400,
        'invalid_request',
      )
    }
    const policy = { trigger: { contextFraction: 0.8 }, strategy: { window: { contextFraction: 0.5 } } }
    const patched = await call('PATCH', `/v1/sessions/${id}`, { body: { policy } })
    expect(patched.body.policy).toEqual(policy)
  })
})

describe('summarizer instructions', () => {
  it('reach the summarization request only, never the stored summary turn', async () => {
    const id = newSessionId()
    const tag = newTag()
    await history(id, 3, 20)
    const instructions = 'Keep every number exactly.'
    const result = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${tag}`, instructions } } },
    })
    expect(result.body.unchanged).toBe(false)
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.messages.at(-1)!.content).toContain(`Instructions for this summary:\n${instructions}`)
    expect(JSON.stringify(result.body.summary.map((e: { message: unknown }) => e.message))).not.toContain(instructions)
    const tooLong = await call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { summarizer: { instructions: 'x'.repeat(4001) } } },
    })
    expectError(tooLong, 400, 'invalid_request')
  })
})
