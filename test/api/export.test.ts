import { describe, expect, it } from 'vitest'
import { append, call, expectError, newSessionId, numberedTurns, user, wholeLog } from '../helpers'
import { everyKind } from '../support/every-kind'

const exported = (id: string, format?: string, as?: string) =>
  call('GET', `/v1/sessions/${id}/export${format ? `?format=${format}` : ''}`, as ? { user: as } : {})
const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))

describe('GET /v1/sessions/:id/export', () => {
  it('jsonl (the default): the session line, then every log event as GET /events answers it, a line each', async () => {
    const id = await everyKind()
    const result = await exported(id)
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8')
    expect(result.headers.get('Content-Disposition')).toBe(`attachment; filename="${id}.jsonl"`)
    const [header, ...events] = lines(result.text)
    const session = (await call('GET', `/v1/sessions/${id}`)).body
    expect(header).toEqual({
      type: 'session',
      format: 'durable-sessions/1',
      id,
      createdAt: session.createdAt,
      metadata: {},
      policy: null,
      forkedFrom: null,
      exportedAt: expect.any(String),
      version: session.version,
    })
    expect(events).toEqual(await wholeLog(id))
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['MESSAGE', 'PINS', 'COMPACTION', 'REWIND']))
  })

  it('openai and anthropic: the view in that wire shape, tool calls paired, the system prompt apart', async () => {
    const id = await everyKind()
    const openai = await exported(id, 'openai')
    expect(openai.body).toEqual((await call('GET', `/v1/sessions/${id}/view?format=openai`)).body)
    const anthropic = await exported(id, 'anthropic')
    expect(anthropic.status, anthropic.text).toBe(200)
    expect(anthropic.body.system).toBe('Be brief.')
    const { messages } = anthropic.body
    expect(messages.every((m: any) => ['user', 'assistant', 'system'].includes(m.role) && Array.isArray(m.content))).toBe(true)
    const blocks = messages.flatMap((m: any) => m.content.map((block: any) => `${m.role}:${block.type}`))
    expect(blocks).toContain('assistant:tool_use')
    const result = messages.find((m: any) => m.content.some((block: any) => block.type === 'tool_result'))
    expect(result).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'w1', content: 'sunny' }] })
    expect(messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'the question after the branch, again' }] })
  })

  it('markdown: the lineage, readable, with the compaction, the pin and the branch point marked; no abandoned branch', async () => {
    const id = await everyKind()
    const result = await exported(id, 'markdown')
    expect(result.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8')
    const text = result.text
    expect(text).toMatch(new RegExp(`^# Session ${id}`))
    for (const piece of ['### system prompt', 'question 1', '### assistant', 'answer 3', '*Compaction', '*Pins', 'pinned a1'])
      expect(text, piece).toContain(piece)
    expect(text).toContain('*Branch point')
    expect(text).toContain('- calls `get_weather` (w1)')
    expect(text).toContain('the question after the branch')
    expect(text).not.toContain('abandoned question')
    expect(text.indexOf('question 1')).toBeLessThan(text.indexOf('*Compaction'))
  })

  it('streams a large session whole', async () => {
    const id = newSessionId('export-large')
    const big = 'x'.repeat(4000)
    for (let batch = 0; batch < 4; batch++)
      await append(
        id,
        Array.from({ length: 50 }, (_, i) => user(`${batch}-${i} ${big}`, `e${batch}-${i}`)),
      )
    const result = await exported(id)
    const [, ...events] = lines(result.text)
    expect(events.map((event) => event.id)).toEqual((await wholeLog(id)).map((event) => event.id))
    expect(result.text.length).toBeGreaterThan(256 * 1024)
  })

  it('an unknown format is a 400; an absent session, or another user’s, a 404', async () => {
    const id = await numberedTurns(1, 'export')
    expectError(await exported(id, 'pdf'), 400, 'invalid_request')
    expectError(await exported(newSessionId('never')), 404, 'not_found')
    expectError(await exported(id, 'jsonl', 'mallory'), 404, 'not_found')
  })
})
