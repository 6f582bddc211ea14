import { describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { png } from '../../src/core/media/fixtures'
import { append, assistant, call, heldBlobs, newSessionId, newTag, numberedTurns, user, wholeLog } from '../helpers'
import { expectBlobsExportedOnce, expectNothingLost } from '../support/log-checker'
import { a, send, u } from '../support/messages-door'

// The fault and branch tests lean on expectNothingLost; here it is shown to catch each way a log could lose an event.

/** A real log with a pin, a pass, an undo, a second pass and a rewind: S1 u1 a1 … u4 a4. */
async function everyBoundary() {
  const id = await numberedTurns(3, 'check')
  const pass = (body: unknown = {}) =>
    call('POST', `/v1/sessions/${id}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `echo#${newTag()}` } }, ...(body as object) },
    })
  expect((await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: ['u1'] } })).status).toBe(200)
  const first = (await pass()).body
  expect(first.unchanged).toBe(false)
  expect((await call('POST', `/v1/sessions/${id}/compactions/${first.boundary.id}/undo`)).status).toBe(200)
  await append(id, [user('question 4', 'u4'), assistant('answer 4', 'a4')])
  expect((await pass()).body.unchanged).toBe(false)
  expect((await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'u3', position: 'before' } })).status).toBe(200)
  return wholeLog(id)
}

const copy = (log: any[]) => structuredClone(log)
const find = (log: any[], test: (e: any) => boolean) => {
  const event = log.find(test)
  expect(event).toBeDefined()
  return event
}
const isPass = (e: any) => e.type === 'COMPACTION' && e.boundary.undoes === undefined

describe('the log checker (expectNothingLost)', () => {
  it('passes a real log holding every kind of boundary, and answers its view', async () => {
    const log = await everyBoundary()
    expect(log.map((e) => e.type[0]).join('')).toBe('MMMMMMMPCMMCMMCMMR')
    expect(expectNothingLost(log).view.map((e) => e.id)).toEqual(['S1', 'u1', 'a1', 'u2', 'a2'])
  })

  it('catches a pass that drops an event without counting it', async () => {
    const log = copy(await everyBoundary())
    const pass = find(log, isPass)
    pass.boundary.preserved.pop()
    expect(() => expectNothingLost(log)).toThrow(/covered/)
  })

  it('catches a pass that covers a pinned event', async () => {
    const log = copy(await everyBoundary())
    const pass = find(log, isPass)
    pass.boundary.pinned = pass.boundary.pinned.filter((id: string) => id !== 'u1')
    pass.boundary.coveredEventCount++
    expect(() => expectNothingLost(log)).toThrow(/covers u1, which was pinned/)
  })

  it('catches an undo that does not bring back what its pass covered', async () => {
    const log = copy(await everyBoundary())
    const undo = find(log, (e) => e.type === 'COMPACTION' && e.boundary.undoes !== undefined)
    undo.boundary.preserved.splice(1, 1)
    expect(() => expectNothingLost(log)).toThrow(/without the pass it undoes/)
  })

  it('catches a rewind whose view is not the view as of its point, or miscounts what left', async () => {
    const wrongView = copy(await everyBoundary())
    find(wrongView, (e) => e.type === 'REWIND').boundary.preserved.push('u3')
    expect(() => expectNothingLost(wrongView)).toThrow(/the view as of before u3/)
    const miscounted = copy(await everyBoundary())
    find(miscounted, (e) => e.type === 'REWIND').boundary.coveredEventCount--
    expect(() => expectNothingLost(miscounted)).toThrow(/messages that left the view/)
  })
})

const readFile = { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: {} } }

/**
 * A real log of an agent's loop through the Messages door (the fake `loop-<n>` model calls step_k,
 * each result ≈ 500 tokens), with Anthropic's context_management edits applied as passes.
 */
async function loopLog(steps: number, edit: Record<string, unknown>) {
  const id = newSessionId('check')
  const model = `loop-9#${newTag()}`
  const messages: unknown[] = [u('Read every file and report.')]
  for (let step = 1; step <= steps + 1; step++) {
    const answer = await send(id, { model, tools: [readFile], messages, context_management: { edits: [edit] } })
    expect(answer.status, answer.text).toBe(200)
    const content = answer.body.content.filter((block: any) => block.type !== 'compaction')
    messages.push(a(content))
    const words = Array.from({ length: 400 }, (_, i) => `w${(step * 7 + i) % 997}`).join(' ')
    if (step <= steps) messages.push(u([{ type: 'tool_result', tool_use_id: `step_${step}`, content: words.slice(0, 2048) }]))
  }
  return wholeLog(id)
}

/** Clearing passes: each keeps the newest call's result and clears the older ones'. */
const clearingLog = () =>
  loopLog(4, {
    type: 'clear_tool_uses_20250919',
    trigger: { type: 'input_tokens', value: 1000 },
    keep: { type: 'tool_uses', value: 1 },
  })
/** Passes inside the loop's turn: a summary after the question stands for the older steps. */
const inTurnLog = () => loopLog(5, { type: 'compact_20260112', trigger: { type: 'input_tokens', value: 1200 } })

const clearings = (log: any[]) => log.filter((e) => e.type === 'COMPACTION' && e.boundary.cleared?.length)
const inTurnPasses = (log: any[]) =>
  log.filter(
    (e) =>
      isPass(e) &&
      e.boundary.coveredEventCount > 0 &&
      log.find((m) => m.id === e.boundary.pinned.at(-1))?.message?.role === 'user',
  )

describe('the log checker on clearing passes', () => {
  it('passes a real log of clearing passes, each keeping every message', async () => {
    const log = await clearingLog()
    expect(clearings(log).length).toBeGreaterThanOrEqual(2)
    for (const pass of clearings(log)) expect(pass.boundary.coveredEventCount).toBe(0)
    expectNothingLost(log)
  })

  it('catches a clearing that reorders the view it keeps', async () => {
    const log = copy(await clearingLog())
    clearings(log)[0].boundary.preserved.reverse()
    expect(() => expectNothingLost(log)).toThrow(/keeps the view as it was/)
  })

  it('catches a later pass that shows a cleared result again', async () => {
    const log = copy(await clearingLog())
    const later = clearings(log)[1]
    later.boundary.cleared.shift()
    expect(() => expectNothingLost(log)).toThrow(/drops its clearing of step_1/)
  })

  it('catches a clearing whose cleared result has lost its call from the view', async () => {
    const log = copy(await clearingLog())
    const pass = clearings(log)[0]
    const [entry] = pass.boundary.cleared
    // The call's message leaves the view (counted as covered); its result stays, cleared.
    const call = log.find((e) => e.message?.toolCalls?.some((c: any) => c.id === entry.callIds[0]))
    pass.boundary.preserved = pass.boundary.preserved.filter((id: string) => id !== call.id)
    pass.boundary.coveredEventCount++
    expect(() => expectNothingLost(log)).toThrow(/clears the result of step_1, whose call its view lacks/)
  })
})

describe('the log checker on passes inside the newest turn', () => {
  it('passes a real log whose passes cover the loop’s older steps behind a summary after its question', async () => {
    const log = await inTurnLog()
    expect(inTurnPasses(log).length).toBeGreaterThanOrEqual(1)
    expectNothingLost(log)
  })

  it('catches a summary placed after the steps it kept instead of right after the question', async () => {
    const log = copy(await inTurnLog())
    const { boundary } = inTurnPasses(log)[0]
    boundary.preserved.unshift(boundary.pinned.pop())
    expect(() => expectNothingLost(log)).toThrow(/right after the turn's user message/)
  })

  it('catches a pass that splits a tool group, keeping a result whose call it covered', async () => {
    const log = copy(await inTurnLog())
    const { boundary } = inTurnPasses(log)[0]
    const kept = new Set([...boundary.pinned, ...boundary.preserved])
    const before = log.slice(0, log.indexOf(inTurnPasses(log)[0]))
    const coveredResult = before.find((e) => e.message?.role === 'tool' && !kept.has(e.id))
    boundary.preserved.unshift(coveredResult.id)
    boundary.coveredEventCount--
    expect(() => expectNothingLost(log)).toThrow(/splits the tool group/)
  })

  it('catches a pass that covers the newest tool group', async () => {
    const log = copy(await inTurnLog())
    const { boundary } = inTurnPasses(log)[0]
    const newest = boundary.preserved.splice(-2)
    boundary.coveredEventCount += newest.length
    expect(() => expectNothingLost(log)).toThrow(/covers the newest tool group/)
  })
})

describe('the log checker on blobs', () => {
  const image = (width: number) => ({ type: 'image', mediaType: 'image/png', data: encodeBase64(png(width, 2)) })
  async function withImages() {
    const id = newSessionId('check')
    await append(id, [{ message: { role: 'user', content: [{ type: 'text', text: 'Look:' }, image(3)] } }])
    await append(id, [assistant('Seen.'), { message: { role: 'user', content: [image(3), image(5)] } }])
    return { id, log: await wholeLog(id), held: await heldBlobs(id) }
  }

  it('passes a log whose events name exactly the blobs the session holds', async () => {
    const { log, held } = await withImages()
    expect(held).toHaveLength(2)
    expectNothingLost(log, { blobs: held })
  })

  it('catches an event naming a blob the session does not hold, and a blob no event names', async () => {
    const { log, held } = await withImages()
    expect(() => expectNothingLost(log, { blobs: held.slice(1) })).toThrow(/names sha256:\w+, which the session does not hold/)
    const orphan = `sha256:${'0'.repeat(64)}`
    expect(() => expectNothingLost(log, { blobs: [...held, orphan] })).toThrow(/holds sha256:0+, which no event names/)
  })

  it('checks a jsonl export carries each blob’s bytes once, in the first event naming it, and that they are its bytes', async () => {
    const { id } = await withImages()
    const exported = (await call('GET', `/v1/sessions/${id}/export?format=jsonl`)).text
    const lines = () =>
      exported
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((line) => line.type === 'MESSAGE')
    await expectBlobsExportedOnce(lines())
    const twice = lines()
    twice[2].message.content[0].data = twice[0].message.content[1].data
    await expect(expectBlobsExportedOnce(twice)).rejects.toThrow(/bytes again/)
    const missing = lines()
    delete missing[0].message.content[1].data
    await expect(expectBlobsExportedOnce(missing)).rejects.toThrow(/bytes missing/)
    const other = lines()
    other[0].message.content[1].data = encodeBase64(png(9, 9))
    await expect(expectBlobsExportedOnce(other)).rejects.toThrow(/the bytes exported for/)
  })
})
