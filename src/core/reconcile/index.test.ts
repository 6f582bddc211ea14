import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { msg, sequenced } from '../testing'
import { asksTurn, branchPoint, type ClientMessage, clientMessagesOf, messageKey, overlap, reconcile } from '.'

const u = (content: string): ClientMessage => ({ role: 'user', content })
const a = (content: string): ClientMessage => ({ role: 'assistant', content })
const calls = (...ids: string[]): ClientMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 'f', arguments: `{"id":"${id}","n":1}` })),
})
const t = (id: string, content = `result ${id}`): ClientMessage => ({ role: 'tool', content, toolCallId: id })

describe('the log as the client was shown it', () => {
  it('shows an inline system message to a door that shows them, and to no other; never the system prompt', () => {
    const [prompt, inline] = sequenced([
      msg('S', { role: 'system', content: 'prompt' }),
      { ...msg('I', { role: 'system', content: 'env' }), metadata: { inline: true } },
    ]) as never as Parameters<typeof clientMessagesOf>[0][]
    expect(clientMessagesOf(inline!, { inline: true })).toEqual([{ role: 'system', content: 'env' }])
    expect(clientMessagesOf(inline!, { inline: false })).toEqual([])
    expect(clientMessagesOf(prompt!, { inline: true })).toEqual([])
  })

  it('shows tool ids as the door’s wire shows them, calls and results alike', () => {
    const [call, result] = sequenced([
      msg('C', { role: 'assistant', content: null, toolCalls: [{ id: 'a.b', name: 'f', arguments: '{}' }] }),
      msg('T', { role: 'tool', content: null, toolResponses: [{ id: 'a.b', name: 'f', data: 'ok' }] }),
    ]) as never as Parameters<typeof clientMessagesOf>[0][]
    const shown = { inline: false, toolId: (id: string) => id.replace('.', '_') }
    expect(clientMessagesOf(call!, shown)).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'a_b', name: 'f', arguments: '{}' }] },
    ])
    expect(clientMessagesOf(result!, shown)).toEqual([{ role: 'tool', content: 'ok', toolCallId: 'a_b' }])
    expect(clientMessagesOf(call!)[0]!.toolCalls![0]!.id).toBe('a.b')
  })

  it('asks a turn when what is new ends with a user or tool message, inline system messages after it aside', () => {
    const s: ClientMessage = { role: 'system', content: 'env' }
    expect(asksTurn([u('q'), s])).toBe(true)
    expect(asksTurn([t('c1'), s, s])).toBe(true)
    expect(asksTurn([u('q'), a('r'), s])).toBe(false)
    expect(asksTurn([s])).toBe(false)
    expect(asksTurn([])).toBe(false)
    expect(reconcile([u('q'), s], [], { logIsEmpty: true })).toEqual({ kind: 'new', messages: [u('q'), s], seeding: true })
  })

  it('leaves out system messages, summaries, interrupted results and recall; one message per tool response', () => {
    const [system, summary, interrupted, tool, recall, mixed] = sequenced([
      msg('S', { role: 'system', content: 'Be brief.' }),
      msg('Σ', { role: 'assistant', content: 'summary' }, { synthetic: true }),
      {
        ...msg('I', { role: 'tool', content: null, toolResponses: [{ id: 'c0', name: 'f', data: 'x' }] }),
        metadata: { interrupted: true },
      },
      msg('T', {
        role: 'tool',
        content: null,
        toolResponses: [
          { id: 'c1', name: 'f', data: 'one' },
          { id: 'r1', name: 'recall_history', data: '{"hits":[]}' },
          { id: 'c2', name: 'f', data: 'two' },
        ],
      }),
      msg('R', { role: 'assistant', content: null, toolCalls: [{ id: 'r1', name: 'recall_history', arguments: '{}' }] }),
      msg('M', {
        role: 'assistant',
        content: 'Checking',
        toolCalls: [
          { id: 'r2', name: 'recall_history', arguments: '{}' },
          { id: 'c3', name: 'f', arguments: '{}' },
        ],
      }),
    ])
    for (const event of [system!, summary!, interrupted!, recall!]) expect(clientMessagesOf(event)).toEqual([])
    expect(clientMessagesOf(tool!)).toEqual([t('c1', 'one'), t('c2', 'two')])
    expect(clientMessagesOf(mixed!)).toEqual([
      { role: 'assistant', content: 'Checking', toolCalls: [{ id: 'c3', name: 'f', arguments: '{}' }] },
    ])
  })

  it('compares messages by role, content (null as ""), calls with their arguments as parsed JSON, and call id', () => {
    const spaced = { ...calls('c1'), toolCalls: [{ id: 'c1', name: 'f', arguments: '{ "n": 1, "id": "c1" }' }] }
    expect(messageKey(spaced)).toBe(messageKey(calls('c1')))
    expect(messageKey(calls('c1'))).not.toBe(messageKey(calls('c2')))
    expect(messageKey(u('x'))).not.toBe(messageKey(a('x')))
    expect(messageKey(t('c1', 'x'))).not.toBe(messageKey(t('c2', 'x')))
  })
})

describe('overlap', () => {
  it('is the longest start of the request that ends the log', () => {
    expect(overlap(['a', 'b', 'c'], ['x', 'a', 'b'])).toBe(2)
    expect(overlap(['a', 'b'], ['a', 'b', 'a'])).toBe(1)
    expect(overlap(['a', 'a', 'a'], ['a', 'a'])).toBe(2)
    expect(overlap(['a'], [])).toBe(0)
    expect(overlap([], ['a'])).toBe(0)
  })

  it('agrees with trying every k, for any two sequences', () => {
    const seq = fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 12 })
    fc.assert(
      fc.property(seq, seq, (request, log) => {
        let k = Math.min(request.length, log.length)
        while (k > 0 && request.slice(0, k).join() !== log.slice(log.length - k).join()) k--
        expect(overlap(request, log)).toBe(k)
      }),
    )
  })
})

describe('branchPoint', () => {
  it('finds where an edited history leaves the lineage: the longest run of its start, the latest one', () => {
    // An edit of the last question: the first two match, the third is new.
    expect(branchPoint([u('q1'), a('r1'), u('q2!')], [u('q1'), a('r1'), u('q2'), a('r2')])).toEqual({ j: 2, i: 2 })
    // A repeated exchange: the latest place it ends.
    expect(branchPoint([u('hi'), a('hello'), u('x')], [u('hi'), a('hello'), u('hi'), a('hello')])).toEqual({ j: 2, i: 4 })
    // A history the lineage does not hold at all (a client that compacted its own copy).
    expect(branchPoint([u('summary'), a('ok'), u('go on')], [u('q1'), a('r1')])).toEqual({ j: 0, i: 0 })
    // Arguments compare as JSON, as everywhere in matching.
    const reordered: ClientMessage = { ...calls('c1'), toolCalls: [{ id: 'c1', name: 'f', arguments: '{"n":1,"id":"c1"}' }] }
    expect(branchPoint([u('q'), reordered, t('c1', 'other')], [u('q'), calls('c1'), t('c1')])).toEqual({ j: 2, i: 2 })
  })

  it('agrees with trying every start and length, for any two sequences', () => {
    const seq = fc.array(fc.constantFrom('a', 'b', 'c').map(u), { maxLength: 10 })
    fc.assert(
      fc.property(seq, seq, (request, lineage) => {
        let best = { j: 0, i: 0 }
        for (let start = 0; start < lineage.length; start++) {
          let j = 0
          while (j < request.length && start + j < lineage.length && request[j]!.content === lineage[start + j]!.content) j++
          if (j > 0 && j >= best.j) best = { j, i: start + j }
        }
        expect(branchPoint(request, lineage)).toEqual(best)
      }),
    )
  })
})

describe('reconcile', () => {
  const log = [u('hi'), a('hello'), u('weather?'), calls('c1'), t('c1'), a('sunny')]

  it('a request that continues the log with nothing new is nothing_new, not an error; without continues it is refused', () => {
    for (const resent of [[], log.slice(4, 5), log.slice(2, 5)]) {
      const continued = reconcile(resent, log.slice(0, 5), { logIsEmpty: false, continues: true })
      expect(continued, JSON.stringify(resent)).toEqual({ kind: 'nothing_new' })
      expect(reconcile(resent, log.slice(0, 5), { logIsEmpty: false }).kind).toBe('refused')
    }
    expect(reconcile([u('more')], log, { logIsEmpty: false, continues: true }).kind).toBe('new')
  })

  it('finds what is new whether the client resends everything, some of it, or only what is new', () => {
    for (const resent of [log, log.slice(2), log.slice(5), []]) {
      expect(reconcile([...resent, u('thanks')], log, { logIsEmpty: false })).toEqual({
        kind: 'new',
        messages: [u('thanks')],
        seeding: false,
      })
    }
  })

  it('takes leading tool messages as new: the results of pending calls', () => {
    const waiting = log.slice(0, 4)
    expect(reconcile([...waiting, t('c1')], waiting, { logIsEmpty: false })).toMatchObject({ messages: [t('c1')] })
    expect(reconcile([t('c1')], waiting, { logIsEmpty: false })).toMatchObject({ messages: [t('c1')] })
  })

  it('is a retry when the log ends with a reply and the request (with an assistant message) is what came before it', () => {
    expect(reconcile(log.slice(0, 5), log, { logIsEmpty: false })).toEqual({ kind: 'retry' })
    expect(reconcile(log.slice(3, 5), log, { logIsEmpty: false })).toEqual({ kind: 'retry' })
    // Without an assistant message it is a new message that happens to repeat the last one.
    expect(reconcile([t('c1')], log, { logIsEmpty: false })).toEqual({ kind: 'new', messages: [t('c1')], seeding: false })
  })

  it('is a retry without an assistant message only when the client says it is resending', () => {
    const first = [u('hi'), a('hello')]
    expect(reconcile([u('hi')], first, { logIsEmpty: false, retried: true })).toEqual({ kind: 'retry' })
    expect(reconcile([u('hi')], first, { logIsEmpty: false })).toEqual({ kind: 'new', messages: [u('hi')], seeding: false })
    // Resent, a question that is not the whole conversation is asked again (the log shows one more before it).
    expect(reconcile([u('hi')], [u('x'), a('y'), u('hi'), a('hello')], { logIsEmpty: false, retried: true })).toEqual({
      kind: 'new',
      messages: [u('hi')],
      seeding: false,
    })
    // Resent, a request that is not what came before the reply is what it is.
    expect(reconcile([u('other')], first, { logIsEmpty: false, retried: true })).toEqual({
      kind: 'new',
      messages: [u('other')],
      seeding: false,
    })
  })

  it('refuses a request ending with an assistant message or holding nothing new (400), an edited history (409)', () => {
    expect(reconcile([u('x'), a('y')], log, { logIsEmpty: false })).toMatchObject({
      kind: 'refused',
      code: 'invalid_request',
      at: 1,
    })
    expect(reconcile([...log], log, { logIsEmpty: false })).toMatchObject({ kind: 'refused', code: 'invalid_request' })
    const edited = [u('hi'), a('HELLO (edited)'), u('and now?')]
    expect(reconcile(edited, log, { logIsEmpty: false })).toMatchObject({ kind: 'refused', code: 'history_diverged', at: 1 })
  })

  it('on a session with no messages takes the whole request as given: the client seeds its history', () => {
    const seed = [u('hi'), a('hello'), u('go on')]
    expect(reconcile(seed, [], { logIsEmpty: true })).toEqual({ kind: 'new', messages: seed, seeding: true })
  })
})

// ── property: whatever part of its history a client resends, each message is stored once ──────

describe('a client resending any part of its history', () => {
  it('leaves the log holding each message once, and a resent answered request is a retry', () => {
    const step = fc.record({
      resend: fc.nat(),
      content: fc.constantFrom('hi', 'ok', 'why?', 'hello'),
      tool: fc.boolean(),
      again: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const stored: ClientMessage[] = [] // the session's log, as the client is shown it
        const history: ClientMessage[] = [] // what the client holds
        let replies = 0
        const answer = (request: ClientMessage[]) => {
          const result = reconcile(request, stored, { logIsEmpty: stored.length === 0 })
          if (result.kind !== 'new') return result
          stored.push(...result.messages)
          // The model: a call for the first message of a tool turn, else a reply no other turn has.
          const reply = request.at(-1)!.role === 'user' && toolTurn ? calls(`c${replies}`) : a(`reply ${replies}`)
          replies++
          stored.push(reply)
          return { ...result, reply }
        }
        let toolTurn = false
        for (const { resend, content, tool, again } of steps) {
          toolTurn = tool
          const resent = history.slice(history.length - Math.min(resend, history.length))
          const request = [...resent, u(content)]
          const first = answer(request)
          expect(first.kind).toBe('new')
          if (first.kind !== 'new' || !('reply' in first)) return
          history.push(u(content), first.reply)
          if (first.reply.toolCalls) {
            // The client runs the tool and sends its result, after any part of its history.
            const id = first.reply.toolCalls[0]!.id
            const resentAgain = history.slice(history.length - Math.min(resend, history.length))
            const continued = answer([...resentAgain, t(id)])
            expect(continued.kind).toBe('new')
            if (continued.kind !== 'new' || !('reply' in continued)) return
            history.push(t(id), continued.reply)
            if (again && resentAgain.some((m) => m.role === 'assistant')) {
              expect(answer([...resentAgain, t(id)])).toEqual({ kind: 'retry' })
            }
          } else if (again && resent.some((m) => m.role === 'assistant')) {
            expect(answer(request)).toEqual({ kind: 'retry' })
          }
          expect(stored.map(messageKey)).toEqual(history.map(messageKey))
        }
      }),
    )
  })
})
