import { describe, expect, it } from 'vitest'
import { compact } from '../compact'
import type { CompactionEvent, Message, MessageEvent, NewMessageEvent } from '../events'
import { project } from '../projection'
import { depsFor, msg, storeOf, user } from '../testing'
import { defaultEstimator } from '../tokens/gpt-tokenizer'
import { clearedMessage, clearedNotice, planClearing, viewEvents } from '.'

const session = { id: 's1', metadata: {} }
const big = (n: number) => `line ${n} `.repeat(400)

/** An agent's loop: the question, then `n` groups of one call (tool `read_file`, or `grep` every third) and its large result. */
function loop(n: number): NewMessageEvent[] {
  const list: NewMessageEvent[] = [user('U')]
  for (let i = 1; i <= n; i++) {
    const name = i % 3 === 0 ? 'grep' : 'read_file'
    list.push(
      msg(`C${i}`, { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name, arguments: `{"path":"f${i}"}` }] }),
    )
    list.push(msg(`T${i}`, { role: 'tool', content: null, toolResponses: [{ id: `c${i}`, name, data: big(i) }] }))
  }
  return list
}

const dataOf = (message: Message) => message.toolResponses?.[0]?.data

describe('clearing', () => {
  it('writes the notice the spec gives: the call, its tool, its size, and how to get it back', () => {
    expect(clearedNotice('result', 'call_7', 'read_file', 8214)).toBe(
      '[tool result cleared: call call_7 (read_file), 8,214 tokens — recall_history with {"id": "call_7"} returns it]',
    )
  })

  it('groups the size’s thousands as en-US does, whatever its digits', () => {
    for (const [tokens, written] of [
      [0, '0'],
      [999, '999'],
      [1000, '1,000'],
      [65536, '65,536'],
      [1234567, '1,234,567'],
    ] as const)
      expect(clearedNotice('result', 'c', 't', tokens)).toContain(`(t), ${written} tokens`)
  })

  it('shows an event cleared as the same object on every read while its clearing is the same, and anew under another', () => {
    const event: MessageEvent = { ...loop(1)[2]!, seq: 3 }
    const entry = { eventId: event.id, callIds: ['c1'], inputs: false, tokens: 40, callTokens: [900] }
    const first = viewEvents([event], new Map([[event.id, entry]]))[0]!
    // A later boundary lists the same clearing again, as a new object.
    expect(viewEvents([event], new Map([[event.id, { ...entry, callIds: ['c1'] }]]))[0]).toBe(first)
    const other = viewEvents([event], new Map([[event.id, { ...entry, callTokens: [950] }]]))[0]!
    expect(other).not.toBe(first)
    expect(dataOf(other.message)).toBe(clearedNotice('result', 'c1', 'read_file', 950))
    expect(dataOf(first.message)).toBe(clearedNotice('result', 'c1', 'read_file', 900))
  })

  it('clears every result older than the newest `keep` calls, keeping every message and every pairing', async () => {
    const store = storeOf(loop(6))
    const result = await compact({ session, strategy: { clearToolResults: { keep: 2 } } }, depsFor(store))
    expect(result.unchanged).toBe(false)
    expect(result.covered).toHaveLength(0)
    const boundary = result.boundary as CompactionEvent
    expect(boundary.boundary.cleared!.map((entry) => [entry.eventId, entry.callIds, entry.inputs])).toEqual([
      ['T1', ['c1'], false],
      ['T2', ['c2'], false],
      ['T3', ['c3'], false],
      ['T4', ['c4'], false],
    ])
    const view = project(store.log)
    expect(view.map((event) => event.id)).toEqual(['U', 'C1', 'T1', 'C2', 'T2', 'C3', 'T3', 'C4', 'T4', 'C5', 'T5', 'C6', 'T6'])
    const original = store.log.find((event) => event.id === 'T1')! as NewMessageEvent
    // Its size as the view counted it (the message's estimate less its frame's): the data's own count, within a token.
    const shown = /^\[tool result cleared: call c1 \(read_file\), ([\d,]+) tokens — /.exec(dataOf(view[2]!.message) as string)
    expect(Math.abs(Number(shown![1]!.replaceAll(',', '')) - defaultEstimator.count(big(1)))).toBeLessThanOrEqual(1)
    expect(dataOf(view[2]!.message)).toBe(clearedNotice('result', 'c1', 'read_file', Number(shown![1]!.replaceAll(',', ''))))
    expect(view[2]!.tokens).toBeLessThan(original.tokens / 20)
    expect(dataOf(view[10]!.message)).toBe(big(5))
    // The log is unchanged: the result is still there, whole.
    expect(dataOf(original.message)).toBe(big(1))
    // Counted in what the pass saved: the view's tokens before less after.
    expect(boundary.boundary.tokensEstimatedSaved).toBe(boundary.boundary.tokensBefore! - boundary.boundary.tokensAfter!)
    expect(result.tokensEstimatedSaved).toBeGreaterThan(3 * defaultEstimator.count(big(1)))
  })

  it('leaves excluded tools’ results, and clears the calls’ arguments too when asked', async () => {
    const store = storeOf(loop(6))
    await compact(
      { session, strategy: { clearToolResults: { keep: 1, excludeTools: ['grep'], clearInputs: true } } },
      depsFor(store),
    )
    const view = project(store.log)
    const byId = new Map(view.map((event) => [event.id, event.message]))
    expect(dataOf(byId.get('T3')!)).toBe(big(3)) // grep: excluded
    expect(dataOf(byId.get('T2')!)).toMatch(/^\[tool result cleared: call c2 \(read_file\)/)
    expect(byId.get('C2')).toEqual({
      role: 'assistant',
      content: clearedNotice('input', 'c2', 'read_file', defaultEstimator.count('{"path":"f2"}')),
      toolCalls: [{ id: 'c2', name: 'read_file', arguments: '{}' }],
    })
    expect(byId.get('C6')!.toolCalls![0]!.arguments).toBe('{"path":"f6"}')
  })

  it('clears the arguments of the named tools only when clearInputs lists them', async () => {
    const store = storeOf(loop(6))
    await compact({ session, strategy: { clearToolResults: { keep: 1, clearInputs: ['grep'] } } }, depsFor(store))
    const byId = new Map(project(store.log).map((event) => [event.id, event.message]))
    // Every older result is cleared; only grep's calls lose their arguments.
    expect(dataOf(byId.get('T2')!)).toMatch(/^\[tool result cleared: call c2 \(read_file\)/)
    expect(dataOf(byId.get('T3')!)).toMatch(/^\[tool result cleared: call c3 \(grep\)/)
    expect(byId.get('C2')!.toolCalls![0]!.arguments).toBe('{"path":"f2"}')
    expect(byId.get('C3')).toEqual({
      role: 'assistant',
      content: clearedNotice('input', 'c3', 'grep', defaultEstimator.count('{"path":"f3"}')),
      toolCalls: [{ id: 'c3', name: 'grep', arguments: '{}' }],
    })
  })

  it('does not happen when it would clear fewer tokens than clearAtLeast, or nothing', async () => {
    const store = storeOf(loop(4))
    const tooLittle = await compact(
      { session, strategy: { clearToolResults: { keep: 3, clearAtLeast: 1_000_000 } } },
      depsFor(store),
    )
    expect(tooLittle).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
    const none = await compact({ session, strategy: { clearToolResults: { keep: 10 } } }, depsFor(store))
    expect(none).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
    expect(store.log).toHaveLength(loop(4).length)
  })

  it('covers nothing either on a view longer than the default window: a clearing alone never cuts', async () => {
    const store = storeOf(loop(12))
    for (const clearToolResults of [
      { keep: 20 },
      { keep: 3, clearAtLeast: 1_000_000 },
      { keep: 1, excludeTools: ['read_file', 'grep'] },
    ]) {
      const result = await compact({ session, strategy: { clearToolResults } }, depsFor(store))
      expect(result).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
      expect(result.covered).toHaveLength(0)
    }
    expect(store.log).toHaveLength(loop(12).length)
    expect(project(store.log)).toHaveLength(loop(12).length)
  })

  it('shows the same bytes on every later read, and a later pass keeps what it keeps cleared', async () => {
    const store = storeOf(loop(6))
    await compact({ session, strategy: { clearToolResults: { keep: 2 } } }, depsFor(store))
    const first = JSON.stringify(project(store.log).map((event) => event.message))
    store.appendNow([user('U2'), msg('A2', { role: 'assistant', content: 'done' })])
    expect(
      JSON.stringify(
        project(store.log)
          .slice(0, 13)
          .map((event) => event.message),
      ),
    ).toBe(first)
    // Clearing again clears what is newly old, and keeps the earlier clearing's notices as they were.
    const again = await compact({ session, strategy: { clearToolResults: { keep: 1 } } }, depsFor(store))
    const cleared = (again.boundary as CompactionEvent).boundary.cleared!
    expect(cleared.map((entry) => entry.eventId)).toEqual(['T1', 'T2', 'T3', 'T4', 'T5'])
    expect(
      JSON.stringify(
        project(store.log)
          .slice(0, 9)
          .map((event) => event.message),
      ),
    ).toBe(JSON.stringify(JSON.parse(first).slice(0, 9)))
    // A window pass that covers the first turn drops its clearing with it.
    store.appendNow([user('U3')])
    const windowed = await compact({ session, strategy: { window: { lastTurns: 1 } } }, depsFor(store))
    expect((windowed.boundary as CompactionEvent).boundary.cleared).toBeUndefined()
  })

  it('clears before the window cuts, in one pass, and cuts only when the trigger still fires', async () => {
    const store = storeOf([...loop(6), user('U2')])
    const tokens = project(store.log).reduce((sum, event) => sum + event.tokens, 0)
    // The clearing brings the view under the trigger: no cut.
    const cleared = await compact(
      { session, trigger: { tokenCount: tokens - 1 }, strategy: { clearToolResults: { keep: 1 }, window: { lastTurns: 1 } } },
      depsFor(store),
    )
    expect(cleared.covered).toHaveLength(0)
    expect((cleared.boundary as CompactionEvent).boundary.cleared).toHaveLength(5)
    // Still over it after clearing: the window cuts in the same pass.
    const store2 = storeOf([...loop(6), user('U2')])
    const both = await compact(
      { session, trigger: { tokenCount: 10 }, strategy: { clearToolResults: { keep: 1 }, window: { lastTurns: 1 } } },
      depsFor(store2),
    )
    expect(both.covered.length).toBe(13)
    expect(project(store2.log).map((event) => event.id)).toEqual(['U2'])
    expect(store2.log.filter((event) => event.type === 'COMPACTION')).toHaveLength(1)
  })

  it('plans nothing to clear in a view without tool calls', () => {
    expect(
      planClearing([{ id: 'U', tokens: 3, message: { role: 'user', content: 'hi' } }], new Map(), {}, defaultEstimator),
    ).toBeNull()
  })

  it('clears an assistant message’s arguments once however often it is cleared again', () => {
    const message: Message = {
      role: 'assistant',
      content: 'Reading.',
      toolCalls: [{ id: 'c1', name: 'read', arguments: '{"p":1}' }],
    }
    const entry = { eventId: 'C1', callIds: ['c1'], inputs: true, tokens: 5, callTokens: [4] }
    const once = clearedMessage(message, entry)
    expect(clearedMessage(once, entry)).toEqual(once)
    expect(once.content).toBe(`Reading.\n${clearedNotice('input', 'c1', 'read', 4)}`)
  })
})
