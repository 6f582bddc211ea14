import { describe, expect, it } from 'vitest'
import type { MessageEvent } from '../events'
import { calling, msg, sequenced } from '../testing'
import { INTERRUPTED_RESULT, interruptedResults, planToolResults } from '.'

const user = (id: string) => msg(id, { role: 'user', content: id })
const reply = (id: string) => msg(id, { role: 'assistant', content: id })
const calls = calling
const answered = (id: string, answers: Record<string, string>, toolErrors?: string[]) => {
  const event = msg(id, {
    role: 'tool',
    content: null,
    toolResponses: Object.entries(answers).map(([c, data]) => ({ id: c, name: `f_${c}`, data })),
  })
  return toolErrors ? { ...event, metadata: { toolErrors } } : event
}
const turnOf = (...events: ReturnType<typeof msg>[]): MessageEvent[] => sequenced(events)

describe('tool results checked against the newest turn', () => {
  const waiting = turnOf(user('U'), calls('A', 'c1', 'c2', 'r1'))

  it('become one tool event: request order, names from the calls, errors as their text and listed', () => {
    const plan = planToolResults(waiting, [
      { id: 'c2', error: 'no such city' },
      { id: 'c1', name: 'f_c1', data: '{"t":21}' },
    ])
    expect(plan).toEqual({
      kind: 'continue',
      message: {
        role: 'tool',
        content: null,
        toolResponses: [
          { id: 'c2', name: 'f_c2', data: 'no such city' },
          { id: 'c1', name: 'f_c1', data: '{"t":21}' },
        ],
      },
      metadata: { toolErrors: ['c2'] },
    })
    expect(
      planToolResults(waiting, [
        { id: 'c1', data: 'a' },
        { id: 'c2', data: 'b' },
      ]),
    ).toMatchObject({ metadata: {} })
  })

  it('are a retry when every id is answered the same and a reply followed: that reply, and the results’ event', () => {
    const done = turnOf(user('U'), calls('A', 'c1'), answered('T', { c1: 'x' }), reply('R'), calls('A2', 'c3'))
    const plan = planToolResults(done, [{ id: 'c1', data: 'x' }])
    expect(plan.kind).toBe('retry')
    if (plan.kind === 'retry') expect([plan.results.id, plan.reply.id]).toEqual(['T', 'R'])
  })

  it('refuse, in the contract’s order: a different answer, nothing pending, an id not pending, missing ids', () => {
    const done = turnOf(user('U'), calls('A', 'c1'), answered('T', { c1: 'x' }), reply('R'))
    const code = (turn: MessageEvent[], results: Parameters<typeof planToolResults>[1]) => {
      const plan = planToolResults(turn, results)
      return plan.kind === 'refused' ? `${plan.code}: ${plan.message}` : plan.kind
    }
    expect(code(done, [{ id: 'c1', data: 'y' }])).toMatch(/^id_conflict: .*"c1"/)
    expect(code(done, [{ id: 'c1', error: 'x' }])).toMatch(/^id_conflict/) // the same text, but now an error
    expect(code(done, [{ id: 'c9', data: 'x' }])).toMatch(/^no_pending_tool_calls/)
    // A retry needs a reply after the results: without one, nothing is pending.
    expect(code(turnOf(user('U'), calls('A', 'c1'), answered('T', { c1: 'x' })), [{ id: 'c1', data: 'x' }])).toMatch(
      /^no_pending_tool_calls/,
    )
    expect(code(waiting, [{ id: 'c9', data: 'x' }])).toMatch(/^unknown_tool_call: toolResults\[0\]\.id: "c9"/)
    expect(code(waiting, [{ id: 'r1', data: 'x' }])).toMatch(/^unknown_tool_call: .*"r1"/) // recall is the service's own
    expect(code(waiting, [{ id: 'c1', name: 'other', data: 'x' }])).toMatch(/^unknown_tool_call: toolResults\[0\]\.name/)
    expect(code(waiting, [{ id: 'c1', data: 'x' }])).toBe(
      'tool_results_incomplete: results are missing for the pending tool calls "c2"',
    )
  })

  it('see only the newest turn: calls of an earlier turn are not pending', () => {
    const turn = turnOf(user('U1'), calls('A', 'c1'), user('U2'))
    expect(planToolResults(turn, [{ id: 'c1', data: 'x' }])).toMatchObject({ kind: 'refused', code: 'no_pending_tool_calls' })
  })

  it('a result sent through /events before counts: only what is still pending is owed', () => {
    const turn = turnOf(user('U'), calls('A', 'c1', 'c2'), answered('T', { c1: 'x' }))
    expect(planToolResults(turn, [{ id: 'c2', data: 'y' }])).toMatchObject({ kind: 'continue' })
  })
})

describe('interrupted results', () => {
  it('answer each pending call of the newest turn, named as its call; none when nothing is pending', () => {
    const turn = turnOf(user('U'), calls('A', 'c1', 'c2', 'r1'), answered('T', { c1: 'x' }))
    expect(interruptedResults(turn)).toEqual({
      role: 'tool',
      content: null,
      toolResponses: [{ id: 'c2', name: 'f_c2', data: INTERRUPTED_RESULT }],
    })
    expect(interruptedResults(turnOf(user('U'), reply('R')))).toBeNull()
  })
})
