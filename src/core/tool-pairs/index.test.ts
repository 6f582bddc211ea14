import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, MessageEvent } from '../events'
import { calling, msg, sequenced } from '../testing'
import { NO_RESULT, type PairedMessage, pairToolResults, pendingToolCalls } from '.'

const user = (id: string) => msg(id, { role: 'user', content: id })
const reply = (id: string) => msg(id, { role: 'assistant', content: id })
const calls = calling
const results = (id: string, ...ids: string[]) =>
  msg(id, { role: 'tool', content: null, toolResponses: ids.map((c) => ({ id: c, name: 'f', data: `data ${c} in ${id}` })) })

/** A rendering in short: events by id, results as `id=data`. */
const shown = (paired: PairedMessage<MessageEvent>[]) =>
  paired.map((m) => (m.kind === 'event' ? m.event.id : m.placeholder ? `${m.id}=none` : `${m.id}=${m.data}`)).join(' ')

describe('pending tool calls', () => {
  it('are the newest turn’s calls no later tool message of that turn answers, recall excluded', () => {
    const view = sequenced([
      user('U1'),
      calls('A1', 'c1'),
      user('U2'),
      calls('A2', 'c2', 'c3', 'r1'),
      results('T2', 'c2'),
      results('T0', 'c1'),
    ])
    expect(pendingToolCalls(view)).toEqual(['c3'])
    expect(pendingToolCalls(sequenced([user('U1'), calls('A1', 'c1'), results('T1', 'c1'), reply('A2')]))).toEqual([])
  })
})

describe('a pairing-safe rendering', () => {
  it('places each result right after its call, in call order, and leaves out results without a call before them', () => {
    const view = sequenced([
      results('T0', 'x'),
      user('U1'),
      calls('A1', 'c1', 'c2'),
      user('U2'),
      results('T1', 'c2', 'c1'),
      reply('A2'),
    ])
    expect(shown(pairToolResults(view))).toBe('U1 A1 c1=data c1 in T1 c2=data c2 in T1 U2 A2')
  })

  it('answers a call no stored result answers with a placeholder, in the prompt only', () => {
    const view = sequenced([user('U1'), calls('A1', 'c1'), user('U2')])
    expect(shown(pairToolResults(view))).toBe('U1 A1 c1=none U2')
    expect(pairToolResults(view).find((m) => m.kind === 'result')).toMatchObject({ data: NO_RESULT })
  })

  it('shows the newest turn’s pending calls open when asked (the view for a client), older ones answered', () => {
    const view = sequenced([user('U1'), calls('A1', 'c1'), user('U2'), calls('A2', 'c2', 'r1')])
    expect(shown(pairToolResults(view, { open: true }))).toBe('U1 A1 c1=none U2 A2 r1=none')
    expect(shown(pairToolResults(view))).toBe('U1 A1 c1=none U2 A2 c2=none r1=none')
  })
})

// ── property: whatever was appended, the rendering is valid on the wire and keeps every answered pair

const ids = ['a', 'b', 'c', 'd']
const eventArb = fc.oneof(
  fc.constant<Message>({ role: 'user', content: 'u' }),
  fc.constant<Message>({ role: 'assistant', content: 'a' }),
  fc.uniqueArray(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }).map<Message>((cs) => ({
    role: 'assistant',
    content: null,
    toolCalls: cs.map((id) => ({ id, name: 'f', arguments: '{}' })),
  })),
  fc.array(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }).map<Message>((rs) => ({
    role: 'tool',
    content: null,
    toolResponses: rs.map((id, i) => ({ id, name: 'f', data: `${id}${i}` })),
  })),
)

/** The wire rule, on its own: after a message with calls, exactly one result per call id, before anything else; no other result. */
function wireProblem(paired: PairedMessage[]): string | null {
  for (let i = 0; i < paired.length; i++) {
    const m = paired[i]!
    if (m.kind === 'result') return `result ${m.id} at ${i} follows no call`
    const owed = (m.event.message.toolCalls ?? []).map((c) => c.id)
    let j = i + 1
    const answered: string[] = []
    while (j < paired.length && paired[j]!.kind === 'result') answered.push((paired[j++] as { id: string }).id)
    if ([...answered].sort().join() !== [...owed].sort().join())
      return `call message at ${i} owes ${owed} but is followed by ${answered}`
    i = j - 1
  }
  return null
}

describe('a pairing-safe rendering, for any log', () => {
  it('is valid on the wire and keeps every stored result that follows its call, verbatim', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), (messages) => {
        const view = sequenced(messages.map((message, i) => msg(`e${i}`, message)))
        const paired = pairToolResults(view)
        expect(wireProblem(paired)).toBeNull()
        // Every call answered later in the view shows a stored result: the first unused one after it.
        const open = new Map<string, number>() // call id → calls still waiting for it
        let kept = 0
        for (const event of view) {
          for (const call of event.message.toolCalls ?? []) open.set(call.id, (open.get(call.id) ?? 0) + 1)
          for (const response of event.message.toolResponses ?? []) {
            const waiting = open.get(response.id) ?? 0
            if (waiting > 0) {
              open.set(response.id, waiting - 1)
              kept += 1
            }
          }
        }
        expect(paired.filter((m) => m.kind === 'result' && !m.placeholder)).toHaveLength(kept)
      }),
      { numRuns: 300 },
    )
  })
})
