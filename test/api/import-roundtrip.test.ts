/**
 * The portability property: for random logs — turns, tool loops, pins, passes with and without a
 * summary, undos, rewinds (edits, branches brought back) — an export imported into a new id
 * exports the same events, and the new session's view is the old one's.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { append, assistant, call, newSessionId, user, wholeLog } from '../helpers'

type Step =
  | { kind: 'turn' | 'tools' }
  | { kind: 'pin' | 'rewind'; pick: number; before: boolean }
  | { kind: 'compact'; keep: number; summary: boolean }
  | { kind: 'undo' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('turn' as const, 'tools' as const) }),
  fc.record({ kind: fc.constantFrom('pin' as const, 'rewind' as const), pick: fc.nat(), before: fc.boolean() }),
  fc.record({ kind: fc.constant('compact' as const), keep: fc.integer({ min: 1, max: 3 }), summary: fc.boolean() }),
  fc.record({ kind: fc.constant('undo' as const) }),
)

/** Runs the steps on a new session; a step the session refuses (nothing to undo, a summary to rewind to) changes nothing. */
async function built(steps: Step[]): Promise<string> {
  const id = newSessionId('roundtrip')
  await append(id, [{ message: { role: 'system', content: 'Be brief.' } }, user('first'), assistant('reply')])
  let n = 0
  for (const s of steps) {
    n += 1
    const log = (await wholeLog(id)).filter((event) => event.type === 'MESSAGE' && !event.synthetic)
    const picked = () => log[(s as { pick: number }).pick % log.length]!.id
    // Every third turn's question is appended pinned.
    if (s.kind === 'turn') await append(id, [{ ...user(`question ${n}`), pinned: n % 3 === 0 }, assistant(`answer ${n}`)])
    if (s.kind === 'tools')
      await append(id, [
        user(`tool question ${n}`),
        { message: { role: 'assistant', content: null, toolCalls: [{ id: `call${n}`, name: 'look', arguments: `{"n":${n}}` }] } },
        { message: { role: 'tool', content: null, toolResponses: [{ id: `call${n}`, name: 'look', data: `result ${n}` }] } },
        assistant(`tool answer ${n}`),
      ])
    if (s.kind === 'pin') await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: [picked()] } })
    if (s.kind === 'rewind')
      await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: picked(), position: s.before ? 'before' : 'at' } })
    if (s.kind === 'compact') {
      const strategy = { window: { lastTurns: s.keep }, ...(s.summary ? { summarizer: { model: 'echo' } } : {}) }
      await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy } })
    }
    if (s.kind === 'undo') {
      const newest = (await call('GET', `/v1/sessions/${id}/compactions`)).body.compactions.find((c: any) => !c.undone)
      if (newest) await call('POST', `/v1/sessions/${id}/compactions/${newest.boundary.id}/undo`, { body: {} })
    }
  }
  return id
}

const exportOf = async (id: string) => (await call('GET', `/v1/sessions/${id}/export`)).text
const eventsOf = (file: string) =>
  file
    .split('\n')
    .filter((line) => line !== '')
    .slice(1)
    .map((line) => JSON.parse(line))

describe('export → import → export', () => {
  it('gives the same events and the same view, for random logs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 8 }), async (steps) => {
        const source = await built(steps)
        const file = await exportOf(source)
        const target = newSessionId('roundtrip-copy')
        const result = await call('POST', `/v1/sessions/${target}/import`, {
          body: file,
          headers: { 'Content-Type': 'application/x-ndjson' },
        })
        expect(result.status, `${JSON.stringify(steps)}: ${result.text}`).toBe(200)
        expect(eventsOf(await exportOf(target)), JSON.stringify(steps)).toEqual(eventsOf(file))
        const view = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body
        expect(await view(target)).toEqual(await view(source))
      }),
      { numRuns: 12 },
    )
  })
})
