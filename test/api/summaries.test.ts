import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_SYSTEM_PROMPT } from '../../src/models/summarizer/prompt'
import {
  append,
  assistant,
  call,
  expectError,
  newSessionId,
  newTag,
  releaseUpstream,
  system,
  turn,
  untilUpstreamReceived,
  upstreamRequests,
  user,
} from '../helpers'

/** Counts the WARN lines logged from now on (the objects log in this isolate too), by message. */
function countWarnings() {
  const messages: string[] = []
  const spy = vi
    .spyOn(console, 'warn')
    .mockImplementation((line: unknown) => void messages.push(JSON.parse(String(line)).message))
  return () => {
    spy.mockRestore()
    return messages
  }
}

const log = async (id: string) => (await call('GET', `/v1/sessions/${id}/events?limit=1000`)).body.events as any[]
const view = async (id: string) => (await call('GET', `/v1/sessions/${id}/view`)).body.events as any[]
const compactNow = (id: string, body: unknown) => call('POST', `/v1/sessions/${id}/compact`, { body })

describe('summaries by a chat model', () => {
  it('the worked example: a rolling summary covers the prior one; the call is not stored as conversation', async () => {
    const id = newSessionId()
    const tag = newTag()
    const summarizer = { model: `echo#${tag}` }
    await append(id, [system('Be brief.', 'S'), user('U1', 'U1'), assistant('A1', 'A1'), user('U2', 'U2'), assistant('A2', 'A2')])
    const first = await compactNow(id, { strategy: { window: { lastEvents: 2 }, summarizer } })
    expect(
      first.body.summary.map((e: { synthetic: boolean; message: { role: string } }) => [e.synthetic, e.message.role]),
    ).toEqual([
      [true, 'user'],
      [true, 'assistant'],
    ])
    await append(id, [user('U3', 'U3'), assistant('A3', 'A3')])
    const sigmaOld = first.body.summary.map((e: { id: string }) => e.id)
    expect((await view(id)).map((e) => e.id)).toEqual(['S', ...sigmaOld, 'U2', 'A2', 'U3', 'A3'])

    const second = await compactNow(id, { strategy: { window: { lastEvents: 2 }, summarizer } })
    expect(second.body.covered.map((e: { id: string }) => e.id)).toEqual([...sigmaOld, 'U2', 'A2'])
    expect(second.body.preserved.map((e: { id: string }) => e.id)).toEqual(['U3', 'A3'])
    const sigmaNew = second.body.summary.map((e: { id: string }) => e.id)
    expect((await view(id)).map((e) => e.id)).toEqual(['S', ...sigmaNew, 'U3', 'A3'])
    expect(second.body.boundary.boundary).toMatchObject({
      pinned: ['S'],
      summary: sigmaNew,
      preserved: ['U3', 'A3'],
      coveredEventCount: 4,
    })

    // The log holds the conversation, both boundaries and both summary turns — never the summarizing calls.
    const types = (await log(id)).map((e) => (e.type === 'COMPACTION' ? '⊥' : e.synthetic ? 'Σ' : e.id))
    expect(types).toEqual(['S', 'U1', 'A1', 'U2', 'A2', '⊥', 'Σ', 'Σ', 'U3', 'A3', '⊥', 'Σ', 'Σ'])

    const [call1, call2] = await upstreamRequests(tag)
    const prompt2 = call2!.body.messages[1]!.content!
    expect(call2!.body.messages[0]!.role).toBe('system')
    expect(call2!.body.messages[0]!.content).toBe(DEFAULT_SYSTEM_PROMPT)
    expect(prompt2).toContain(`Previous summary:\n${first.body.summary[1].message.content}`)
    expect(prompt2).toContain('User: U2\nAssistant: A2')
    expect(prompt2).toContain('User: U3\nAssistant: A3') // the overlap, quoted for continuity
    for (const sent of [call1!, call2!]) expect(sent.body.messages[1]!.content).not.toContain('Be brief.')
  })

  it('quotes overlapSize preserved events and uses the shadow and system prompts given', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [user('U1'), assistant('A1'), user('U2'), assistant('A2')])
    const result = await compactNow(id, {
      strategy: {
        window: { lastTurns: 1 },
        summarizer: { model: `echo#${tag}`, overlapSize: 0, systemPrompt: 'Summarize tersely.', shadowPrompt: 'Recap?' },
      },
    })
    expect(result.body.summary[0].message.content).toBe('Recap?')
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body.messages[0]).toEqual({ role: 'system', content: 'Summarize tersely.' })
    expect(sent!.body.messages[1]!.content).not.toContain('User: U2')
  })

  it('an upstream error while summarizing is a 502 from /compact, and nothing is written', async () => {
    const id = newSessionId()
    await append(id, [user('U1'), assistant('A1'), user('U2'), assistant('A2')])
    const warnings = countWarnings()
    const result = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `fail-500#${newTag()}` } } })
    expectError(result, 502, 'upstream_error')
    expect(await log(id)).toHaveLength(4)
    expect(warnings()).toEqual(['summarizer failed; nothing was written']) // one WARN per failure
  })

  it('a blank summary leaves the view unchanged with reason summarizer_failed', async () => {
    const id = newSessionId()
    await append(id, [user('U1'), assistant('A1'), user('U2'), assistant('A2')])
    const warnings = countWarnings()
    const result = await compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `blank#${newTag()}` } } })
    expect(result.body).toMatchObject({ unchanged: true, reason: 'summarizer_failed', boundary: null })
    expect(await log(id)).toHaveLength(4)
    expect(warnings()).toEqual(['summarizer failed; the view is left unchanged'])
  })

  it('appends that land while a summary is written all stay in the view (rebase)', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [user('U1', 'U1'), assistant('A1', 'A1'), user('U2', 'U2'), assistant('A2', 'A2')])
    const pending = compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } } })
    await untilUpstreamReceived(tag) // the summary is being written, until released
    await append(id, [user('U3', 'U3')])
    await append(id, [assistant('A3', 'A3'), { message: { role: 'system', content: 'new rules' }, id: 'S2' }])
    await releaseUpstream(tag)
    const result = (await pending).body
    expect(result.unchanged).toBe(false)
    expect(result.preserved.map((e: { id: string }) => e.id)).toEqual(['U2', 'A2', 'U3', 'A3'])
    expect(result.pinned.map((e: { id: string }) => e.id)).toEqual(['S2'])
    const ids = (await view(id)).map((e) => e.id)
    expect(ids).toEqual(['S2', ...result.summary.map((e: { id: string }) => e.id), 'U2', 'A2', 'U3', 'A3'])
  })

  it('a pass held to a version is not moved onto appends that land while its summary is written: 409, nothing of it written', async () => {
    const id = newSessionId()
    const tag = newTag()
    const { version } = await append(id, [user('U1', 'U1'), assistant('A1', 'A1'), user('U2', 'U2'), assistant('A2', 'A2')])
    const strategy = { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } }
    const pending = compactNow(id, { strategy, expectedVersion: version })
    await untilUpstreamReceived(tag)
    await append(id, [user('U3', 'U3')])
    await releaseUpstream(tag)
    expectError(await pending, 409, 'version_conflict')
    expect((await log(id)).map((e) => e.id)).toEqual(['U1', 'A1', 'U2', 'A2', 'U3'])
  })

  it('a pass that lost to another pass is unchanged with reason conflict, writing nothing', async () => {
    const id = newSessionId()
    await append(id, [user('U1'), assistant('A1'), user('U2'), assistant('A2'), user('U3'), assistant('A3')])
    const tag = newTag()
    const summarizing = compactNow(id, { strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${tag}` } } })
    await untilUpstreamReceived(tag) // that pass waits for its summary, until released
    const fast = await compactNow(id, { strategy: { window: { lastTurns: 2 } } })
    expect(fast.body.unchanged).toBe(false)
    await releaseUpstream(tag)
    const lost = (await summarizing).body
    expect(lost).toMatchObject({ unchanged: true, reason: 'conflict', boundary: null, version: 7 })
    expect(await log(id)).toHaveLength(7)
  })
})

describe('compaction after a turn', () => {
  it('runs the request policy and reports its result', async () => {
    const id = newSessionId()
    const policy = {
      trigger: { turnCount: 1 },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } },
    }
    const first = await turn(id, { content: 'first', compaction: policy })
    expect(first.body.compaction).toMatchObject({ unchanged: true, reason: 'trigger_not_fired' })
    const second = await turn(id, { content: 'second', compaction: policy })
    expect(second.body.compaction).toMatchObject({ unchanged: false, reason: null })
    expect(second.body.compaction.covered.map((e: { message: { content: string } }) => e.message.content)).toEqual([
      'first',
      'Echo: first',
    ])
    expect((await view(id)).map((e) => e.message.content).slice(-2)).toEqual(['second', 'Echo: second'])
  })

  it('falls back to the session policy, and skips compaction with compaction: false', async () => {
    const id = newSessionId()
    await call('POST', '/v1/sessions', {
      body: { id, policy: { trigger: { turnCount: 1 }, strategy: { window: { lastTurns: 1 } } } },
    })
    await turn(id, { content: 'one' })
    const byPolicy = await turn(id, { content: 'two' })
    expect(byPolicy.body.compaction).toMatchObject({ unchanged: false })
    const skipped = await turn(id, { content: 'three', compaction: false })
    expect(skipped.body.compaction).toBeNull()
  })

  it('the built-in default leaves a short conversation alone', async () => {
    const result = await turn(newSessionId(), { content: 'hi' })
    expect(result.body.compaction).toMatchObject({ unchanged: true, reason: 'trigger_not_fired' })
  })

  it('a failing summary never fails the turn: the error is reported', async () => {
    const id = newSessionId()
    const failing = {
      trigger: { always: true },
      strategy: { window: { lastTurns: 1 }, summarizer: { model: `fail-500#${newTag()}` } },
    }
    await turn(id, { content: 'one', compaction: false })
    const warnings = countWarnings()
    const result = await turn(id, { content: 'two', compaction: failing })
    expect(result.status).toBe(200)
    expect(warnings()).toEqual(['summarizer failed; nothing was written'])
    expect(result.body.compaction).toEqual({ error: { code: 'upstream_error', message: expect.stringContaining('500') } })
    expect(await log(id)).toHaveLength(4)
    const blank = { ...failing, strategy: { ...failing.strategy, summarizer: { model: `blank#${newTag()}` } } }
    const again = await turn(id, { content: 'three', compaction: blank })
    expect(again.body.compaction).toMatchObject({ unchanged: true, reason: 'summarizer_failed' })
  })
})

describe('fitting the prompt into CHAT_CONTEXT_TOKENS', () => {
  const bigToolResult = 'lorem ipsum dolor sit amet '.repeat(2500) // ≈ 12.5k tokens, over the 7,168-token prompt budget

  it('compacts before calling the model when the view would not fit; the prompt sent fits', async () => {
    const id = newSessionId()
    const tag = newTag()
    await append(id, [
      user('look it up', 'U1'),
      { id: 'C1', message: { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'search', arguments: '{}' }] } },
      {
        id: 'T1',
        message: { role: 'tool', content: null, toolResponses: [{ id: 'call_1', name: 'search', data: bigToolResult }] },
      },
      assistant('found it', 'A1'),
    ])
    const result = await turn(id, {
      content: 'and now?',
      model: `echo#${tag}`,
      compaction: { trigger: { turnCount: 50 }, strategy: { window: { lastTurns: 10 } } },
    })
    expect(result.status).toBe(200)
    expect(result.body.context.compactions).toHaveLength(2) // the policy's window kept the huge turn, a token budget then covered it
    expect(result.body.context.compactions[1].covered.map((e: { id: string }) => e.id)).toEqual(['U1', 'C1', 'T1', 'A1'])
    expect(result.body.context.promptTokens).toBeLessThanOrEqual(result.body.context.budget)
    const [sent] = await upstreamRequests(tag)
    expect(JSON.stringify(sent!.body.messages)).not.toContain('lorem ipsum')
    // The boundary names stored events only, and the turn's events follow it in the log.
    const events = await log(id)
    expect(result.body.context.compactions[0]).toMatchObject({ unchanged: true, reason: 'nothing_to_cover' })
    expect(events.slice(-3).map((e) => e.type)).toEqual(['COMPACTION', 'MESSAGE', 'MESSAGE'])
    expect(events.at(-3).boundary.preserved).toEqual([])
  })

  it('with a summarizing policy, the covered turns become a summary before the call', async () => {
    const id = newSessionId()
    await append(id, [
      user('look it up'),
      { message: { role: 'tool', content: null, toolResponses: [{ id: 'c', name: 'search', data: bigToolResult }] } },
      assistant('found'),
    ])
    const result = await turn(id, {
      content: 'next',
      compaction: { trigger: { turnCount: 50 }, strategy: { summarizer: { model: `echo#${newTag()}` } } },
    })
    expect(result.status).toBe(200)
    const pass = result.body.context.compactions.find((c: { unchanged: boolean }) => !c.unchanged)
    expect(pass.summary).toHaveLength(2)
    expect((await view(id)).map((e) => e.synthetic)).toEqual([true, true, false, false])
  })

  it('413 context_overflow when the new message alone is too large, or compaction is off; nothing written', async () => {
    const id = newSessionId()
    await append(id, [user('hi')])
    const huge = await turn(id, { content: bigToolResult })
    expectError(huge, 413, 'context_overflow')
    await append(id, [
      { message: { role: 'tool', content: null, toolResponses: [{ id: 'c', name: 'search', data: bigToolResult }] } },
    ])
    const off = await turn(id, { content: 'small', compaction: false })
    expectError(off, 413, 'context_overflow')
    expect(await log(id)).toHaveLength(2)
  })

  it('compacts once more and retries once when the upstream says the prompt is too long', async () => {
    const id = newSessionId()
    const tag = newTag()
    const sixty = 'x'.repeat(60)
    await append(id, [
      user(`1 ${sixty}`),
      assistant(`1 ${sixty}`),
      user(`2 ${sixty}`),
      assistant(`2 ${sixty}`),
      user(`3 ${sixty}`),
      assistant(`3 ${sixty}`),
    ])
    const result = await turn(id, {
      content: 'short',
      model: `context-250#${tag}`,
      compaction: { trigger: { turnCount: 50 }, strategy: {} },
    })
    expect(result.status).toBe(200)
    expect(result.body.context.retried).toBe(true)
    expect(result.body.context.compactions).toHaveLength(1)
    expect(await upstreamRequests(tag)).toHaveLength(2)
  })

  it('413 when the upstream still refuses the prompt after that', async () => {
    const id = newSessionId()
    const result = await turn(id, {
      content: 'this message alone is longer than twenty characters',
      model: `context-20#${newTag()}`,
    })
    expectError(result, 413, 'context_overflow')
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
  })
})
