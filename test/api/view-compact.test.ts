import { evictDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { TRICKY_CASES } from '../../src/core/testing/tricky-cases'
import { sessionStub } from '../../src/object/address'
import { append, call, expectError, newSessionId } from '../helpers'

/** Events from the spec's notation: `U1 A1 S T2 C2 …` (the label is the id and the content). */
function notation(text: string) {
  return text.split(' ').map((label) => {
    const id = label.replace(/'/g, '_')
    switch (label[0]) {
      case 'U':
        return { id, message: { role: 'user', content: label } }
      case 'A':
        return { id, message: { role: 'assistant', content: label } }
      case 'S':
        return { id, message: { role: 'system', content: label } }
      case 'C':
        return {
          id,
          message: { role: 'assistant', content: null, toolCalls: [{ id: `call_${id}`, name: 'lookup', arguments: '{}' }] },
        }
      case 'T':
        return {
          id,
          message: { role: 'tool', content: null, toolResponses: [{ id: `call_${id}`, name: 'lookup', data: label }] },
        }
      default:
        throw new Error(label)
    }
  })
}

const viewIds = async (id: string) =>
  (await call('GET', `/v1/sessions/${id}/view`)).body.events.map((e: { id: string }) => e.id).join(' ')
const compactNow = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/compact`, { body })
const labels = (text: string) => text.replace(/'/g, '_')

describe('the tricky cases of the spec, through HTTP', () => {
  it.each(TRICKY_CASES)('$name', async ({ before, window, after, covered }) => {
    const id = newSessionId()
    await append(id, notation(before))
    const result = await compactNow(id, { strategy: { window } })
    expect(result.status).toBe(200)
    if (after === null) {
      expect(result.body).toMatchObject({
        unchanged: true,
        reason: 'nothing_to_cover',
        covered: [],
        boundary: null,
        version: before.split(' ').length,
      })
      expect(await viewIds(id)).toBe(labels(before))
    } else {
      expect(result.body.unchanged).toBe(false)
      expect(result.body.covered.map((e: { id: string }) => e.id).join(' ')).toBe(labels(covered))
      expect(await viewIds(id)).toBe(labels(after))
    }
  })

  it('token budget with a system prompt: its tokens come off the budget first', async () => {
    const id = newSessionId()
    const written = await append(id, notation('S U1 A1 U2 A2'))
    const [s, u1, a1, u2, a2] = (written.events as unknown as { tokens: number }[]).map((e) => e.tokens)
    // Room for S and the newest turn, not for the older turn as well.
    const budget = s! + u2! + a2! + Math.min(u1!, a1!) - 1
    expect(s! + u1! + a1! + u2! + a2!).toBeGreaterThan(budget)
    const result = await compactNow(id, { strategy: { window: { tokenBudget: budget } } })
    expect(result.body.covered.map((e: { id: string }) => e.id)).toEqual(['U1', 'A1'])
    expect(result.body.tokensEstimatedSaved).toBe(u1! + a1!)
    expect(await viewIds(id)).toBe('S U2 A2')
  })
})

describe('POST /v1/sessions/:id/compact', () => {
  it('records one boundary naming the view; the log keeps everything', async () => {
    const id = newSessionId()
    await append(id, notation('S U1 A1 U2 A2 U3 A3'))
    const result = await compactNow(id, { strategy: { window: { lastTurns: 2 } } })
    expect(result.body).toMatchObject({ unchanged: false, reason: null, summary: [], version: 8 })
    expect(result.body.pinned.map((e: { id: string }) => e.id)).toEqual(['S'])
    expect(result.body.preserved.map((e: { id: string }) => e.id)).toEqual(['U2', 'A2', 'U3', 'A3'])
    expect(result.body.boundary).toMatchObject({
      seq: 8,
      type: 'COMPACTION',
      boundary: { pinned: ['S'], summary: [], preserved: ['U2', 'A2', 'U3', 'A3'], coveredEventCount: 2 },
    })
    const log = await call('GET', `/v1/sessions/${id}/events`)
    expect(log.body.events).toHaveLength(8)
    const session = await call('GET', `/v1/sessions/${id}`)
    expect(session.body.stats).toMatchObject({ events: 8, viewEvents: 5, turns: 2 })
  })

  it('defaults to the always trigger and the session policy strategy, else lastEvents(20)', async () => {
    const withPolicy = newSessionId()
    await call('POST', '/v1/sessions', {
      body: { id: withPolicy, policy: { trigger: { turnCount: 100 }, strategy: { window: { lastTurns: 1 } } } },
    })
    await append(withPolicy, notation('U1 A1 U2 A2'))
    const byPolicy = await compactNow(withPolicy, undefined)
    expect(byPolicy.body.covered.map((e: { id: string }) => e.id)).toEqual(['U1', 'A1'])

    const plain = newSessionId()
    await append(plain, Array.from({ length: 15 }, (_, i) => notation(`U${i} A${i}`)).flat())
    const byDefault = await compactNow(plain, {})
    expect(byDefault.body.preserved).toHaveLength(20)
    expect(byDefault.body.preserved[0].id).toBe('U5')
  })

  it('does nothing when the trigger does not fire', async () => {
    const id = newSessionId()
    await append(id, notation('U1 A1 U2 A2'))
    const result = await compactNow(id, { trigger: { turnCount: 5 }, strategy: { window: { lastTurns: 1 } } })
    expect(result.body).toMatchObject({ unchanged: true, reason: 'trigger_not_fired', version: 4 })
    expect((await call('GET', `/v1/sessions/${id}/events`)).body.events).toHaveLength(4)
  })

  it('400 for bad triggers and windows, 404 for an absent session', async () => {
    const id = newSessionId()
    await append(id, notation('U1 A1'))
    for (const [body, message] of [
      [{ trigger: { turnCount: 1.5 } }, 'trigger.turnCount: must be an integer ≥ 1'],
      [{ trigger: { anyOf: [] } }, 'trigger.anyOf: must be a list of 1 to 16 triggers'],
      [{ strategy: { window: { tokenBudget: 0 } } }, 'strategy.window.tokenBudget: must be an integer ≥ 1'],
      [{ strategy: { window: { lastTurns: 1, lastEvents: 1 } } }, 'strategy.window: must have exactly one of'],
      [{ trigger: 'always' }, 'trigger: must be an object'],
    ] as const) {
      const result = await compactNow(id, body)
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toContain(message)
    }
    expectError(await compactNow(newSessionId(), {}), 404, 'not_found')
  })
})

describe('GET /v1/sessions/:id/view', () => {
  it('renders the view as OpenAI messages: latest system message only and first, tool calls and results paired', async () => {
    const id = newSessionId()
    await append(id, notation('S:old U1 C1 T1 A1 S:new U2'))
    const result = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(result.body.messages).toEqual([
      { role: 'system', content: 'S:new' },
      { role: 'user', content: 'U1' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_C1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
      },
      // T1 answers another id (call_T1): C1 of an older turn gets the placeholder, T1 is left out.
      { role: 'tool', tool_call_id: 'call_C1', content: '{"error":"no result was recorded"}' },
      { role: 'assistant', content: 'A1' },
      { role: 'user', content: 'U2' },
    ])
    expectError(await call('GET', `/v1/sessions/${id}/view?format=xml`), 400, 'invalid_request')
  })

  it('is the same after the object is evicted and reloads its view from storage', async () => {
    const id = newSessionId()
    await append(id, notation('S U1 A1 U2 A2 U3 A3'))
    await compactNow(id, { strategy: { window: { lastTurns: 2 } } })
    await append(id, notation('U4 A4'))
    await compactNow(id, { strategy: { window: { lastTurns: 2 } } })
    await append(id, notation('U5'))
    const before = await call('GET', `/v1/sessions/${id}/view`)
    const sessionBefore = await call('GET', `/v1/sessions/${id}`)
    await evictDurableObject(sessionStub(env, 'alice', id))
    const after = await call('GET', `/v1/sessions/${id}/view`)
    expect(after.body).toEqual(before.body)
    expect(after.body.events.map((e: { id: string }) => e.id).join(' ')).toBe('S U3 A3 U4 A4 U5')
    expect((await call('GET', `/v1/sessions/${id}`)).body).toEqual(sessionBefore.body)
    // And appends after the reload keep the view in step.
    await append(id, notation('A5'))
    expect(await viewIds(id)).toBe('S U3 A3 U4 A4 U5 A5')
  })
})
