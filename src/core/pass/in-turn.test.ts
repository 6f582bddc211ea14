import { describe, expect, it } from 'vitest'
import { compact } from '../compact'
import type { CompactionEvent, NewMessageEvent } from '../events'
import { project } from '../projection'
import { depsFor, msg, recordingSummarizer, storeOf, summary, system, user } from '../testing'
import { analyzeView } from '../view'

const session = { id: 's1', metadata: {} }

/** A loop of `n` groups (a call, then its 100-token result) after the question `U`. */
function loop(n: number, from = 1): NewMessageEvent[] {
  const list: NewMessageEvent[] = []
  for (let i = from; i < from + n; i++) {
    list.push(
      msg(
        `C${i}`,
        { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'run', arguments: '{}' }] },
        { tokens: 10 },
      ),
    )
    list.push(
      msg(
        `T${i}`,
        { role: 'tool', content: null, toolResponses: [{ id: `c${i}`, name: 'run', data: `out ${i}` }] },
        { tokens: 100 },
      ),
    )
  }
  return list
}

const idsOf = (list: readonly { id: string }[]) => list.map((event) => event.id).join(' ')

describe('a pass inside the newest turn', () => {
  it('covers the oldest whole groups, puts one summary right after the turn’s question, and keeps the newest group', async () => {
    const store = storeOf([system('S', 5), summary('Σold'), user('U', 5), ...loop(6)])
    // The view: 5 + Σold + 5 + 6 × 110. A budget of 400 leaves room for three groups and the summary (reserve 50).
    const result = await compact(
      { session, strategy: { inTurn: { tokenBudget: 400, summaryReserve: 50 }, summarizer: recordingSummarizer() } },
      depsFor(store),
    )
    expect(result.unchanged).toBe(false)
    const view = project(store.log)
    const written = result.summary.map((event) => event.id)
    expect(written).toHaveLength(1)
    expect(idsOf(view)).toBe(`S Σold U ${written[0]} C4 T4 C5 T5 C6 T6`)
    expect(result.summary[0]!.message.role).toBe('assistant')
    expect(result.summary[0]!.message.content).toMatch(/^Summary of my earlier steps in this turn:\n/)
    expect((result.boundary as CompactionEvent).boundary.coveredEventCount).toBe(6)
    // The summary stays in the turn: the question is still its turn's start, the summary its conversation.
    const analysis = analyzeView(view)
    expect(idsOf(analysis.priorSummary)).toBe('Σold')
    expect(idsOf(analysis.conversation)).toBe(`U ${written[0]} C4 T4 C5 T5 C6 T6`)
  })

  it('rolls an earlier in-turn summary into the next, and always keeps the newest group', async () => {
    const store = storeOf([user('U', 5), ...loop(3)])
    await compact({ session, strategy: { inTurn: { tokenBudget: 1 } } }, depsFor(store))
    const first = project(store.log)
    expect(idsOf(first).split(' ').slice(-2)).toEqual(['C3', 'T3'])
    const note = first[1]!
    expect(note.synthetic).toBe(true)
    expect(note.message.content).toBe(
      '[2 earlier tool calls of this turn are out of view (run ×2); recall_history with {"id": "<call id>"} returns any of them: c1, c2]',
    )
    store.appendNow(loop(2, 4))
    await compact({ session, strategy: { inTurn: { tokenBudget: 1 } } }, depsFor(store))
    const second = project(store.log)
    expect(second.map((event) => event.id).slice(2)).toEqual(['C5', 'T5'])
    expect(second[1]!.message.content).toMatch(/^\[2 earlier tool calls of this turn are out of view \(run ×2\)/)
    expect(second).toHaveLength(4)
  })

  it('changes nothing with fewer than two groups, or when the budget already holds the view', async () => {
    const one = storeOf([user('U', 5), ...loop(1)])
    expect(await compact({ session, strategy: { inTurn: { tokenBudget: 1 } } }, depsFor(one))).toMatchObject({ unchanged: true })
    const fits = storeOf([user('U', 5), ...loop(3)])
    const result = await compact({ session, strategy: { inTurn: { tokenBudget: 10_000 } } }, depsFor(fits))
    // It covers at least one group: the caller asks for it only when the prompt does not fit.
    expect(result.covered.length).toBe(2)
  })
})
