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
  it('an upstream counting 2× our estimate: the ratio converges, and the fit check compacts earlier', async () => {
    const counted = newSessionId()
    const control = newSessionId()
    for (const id of [counted, control]) await history(id, 8, 650) // ~4,600 tokens: fits 7,168, not twice over
    const runs = { counted: [] as any[], control: [] as any[] }
    for (let i = 0; i < 5; i++) {
      runs.counted.push((await turn(counted, { content: `q${i}`, model: 'scale-2', compaction: onlyToFit })).body)
      runs.control.push((await turn(control, { content: `q${i}`, model: 'echo', compaction: onlyToFit })).body)
    }
    // The first report is taken as it is; five steady ones stay within 10% of the ratio.
    expect(runs.counted[0].context.calibration).toEqual({ ratio: expect.closeTo(2, 1), samples: 1 })
    const last = runs.counted.at(-1).context.calibration
    expect(last.samples).toBe(5)
    expect(Math.abs(last.ratio - 2)).toBeLessThan(0.2)
    expect(Math.abs(runs.control.at(-1).context.calibration.ratio - 1)).toBeLessThan(0.1)
    // The same view fits for a model that counts like us; for one that counts double it must be compacted first.
    expect(runs.counted[0].context.compactions).toEqual([])
    expect(runs.counted[1].context.compactions.length).toBeGreaterThan(0)
    expect(runs.control.every((r) => r.context.compactions.length === 0)).toBe(true)
    // Calibration is stored with the session: a reload keeps it (the next turn starts from it).
    const after = (await turn(counted, { content: 'again', model: 'scale-2', compaction: onlyToFit })).body.context.calibration
    expect(after.samples).toBe(6)
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
