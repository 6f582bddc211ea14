/**
 * Sessions of any size (the contract's section of that name), through the real Worker: what an
 * agent produces — forty tool results at the 1 MiB event limit; 300,000 events never compacted.
 * Every event comes back intact through paging, both views whole, a pass and a turn answered
 * 200 with the right content. Slow (minutes): `npm run test:large`, which CI runs.
 */
import { describe, expect, it } from 'vitest'
import { append, call, newSessionId, upstreamRequests } from '../helpers'

const MB = 1_000_000

/** A page's text: distinct per page, with escapes and multi-byte characters that JSON and UTF-8 must carry. */
const pageText = (i: number) => {
  const head = `page ${i}: "quoted" \\ é 𝒜 \n`
  return head + `${i % 10}`.repeat(MB - new TextEncoder().encode(head).length)
}

/** Every event of the log, paged with the largest limit; the page sizes seen on the way. */
async function pageAll(id: string): Promise<{ events: any[]; pages: { events: number; bytes: number }[] }> {
  const events: any[] = []
  const pages: { events: number; bytes: number }[] = []
  for (let after: number | null = 0; after !== null; ) {
    const page = await call('GET', `/v1/sessions/${id}/events?after=${after}&limit=1000`)
    expect(page.status, page.text.slice(0, 300)).toBe(200)
    events.push(...page.body.events)
    pages.push({ events: page.body.events.length, bytes: new TextEncoder().encode(page.text).length })
    after = page.body.nextAfter
  }
  return { events, pages }
}

describe('forty tool results of 1 MB each', () => {
  const id = newSessionId('pages')
  const events = [
    { id: 'ask', message: { role: 'user', content: 'Read these forty pages and tell me what they say.' } },
    ...Array.from({ length: 40 }, (_, i) => [
      {
        id: `call-${i}`,
        message: { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'fetch', arguments: `{"page":${i}}` }] },
      },
      {
        id: `page-${i}`,
        message: { role: 'tool', content: null, toolResponses: [{ id: `c${i}`, name: 'fetch', data: pageText(i) }] },
      },
    ]).flat(),
    { id: 'read', message: { role: 'assistant', content: 'I have read all forty pages.' } },
    { id: 'next', message: { role: 'user', content: 'Now compare them.' } },
  ]

  it('are stored (one per request: each is at the event limit)', async () => {
    for (let i = 0; i < events.length; i += 6) await append(id, events.slice(i, i + 6))
  })

  it('come back intact through paging, a few per page', async () => {
    const { events: log, pages } = await pageAll(id)
    expect(log.map((event) => event.id)).toEqual(events.map((event) => event.id))
    for (let i = 0; i < 40; i++) expect(log[2 + 2 * i].message.toolResponses[0].data === pageText(i), `page ${i}`).toBe(true)
    // A page ends after the event that brings it to 4 MiB of JSON: far fewer than the limit's
    // thousand events, and never more than 4 MiB and one event.
    expect(Math.max(...pages.map((page) => page.events))).toBeLessThan(12)
    expect(Math.max(...pages.map((page) => page.bytes))).toBeLessThan(4 * 1024 * 1024 + 1.1 * MB)
    expect(pages.length).toBeGreaterThan(8)
  })

  it('make a view that is read whole, in both formats', async () => {
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.status).toBe(200)
    expect(view.body.events).toHaveLength(83)
    expect(view.body.events[80].message.toolResponses[0].data === pageText(39)).toBe(true)
    const openai = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(openai.status).toBe(200)
    const tools = openai.body.messages.filter((m: any) => m.role === 'tool')
    expect(tools).toHaveLength(40)
    expect(tools.every((m: any, i: number) => m.tool_call_id === `c${i}` && m.content === pageText(i))).toBe(true)
  })

  it('is compacted by /compact, answered 200 with the covered pages whole', async () => {
    const result = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastEvents: 1 } } } })
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.body.unchanged).toBe(false)
    expect(result.body.covered).toHaveLength(82)
    expect(result.body.covered[2].message.toolResponses[0].data === pageText(0)).toBe(true)
    expect(result.body.boundary.boundary.coveredEventCount).toBe(82)
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.events.map((event: any) => event.id)).toEqual(['next'])
  })
})

describe('forty tool results, then a turn', () => {
  it('compacts before the model is called and answers the reply', async () => {
    const id = newSessionId('agent')
    await append(id, [{ id: 'ask', message: { role: 'user', content: 'Fetch forty pages.' } }])
    for (let i = 0; i < 40; i++) {
      await append(id, [
        { message: { role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'fetch', arguments: '{}' }] } },
        { message: { role: 'tool', content: null, toolResponses: [{ id: `c${i}`, name: 'fetch', data: pageText(i) }] } },
      ])
    }
    const turn = await call('POST', `/v1/sessions/${id}/turns`, {
      body: {
        content: 'What did the pages say?',
        model: 'echo#large-agent',
        compaction: { trigger: { turnCount: 100 }, strategy: { window: { lastTurns: 1 } } },
      },
    })
    expect(turn.status, turn.text.slice(0, 300)).toBe(200)
    expect(turn.body.reply.message.content).toBe('Echo: What did the pages say?')
    // The pass that made room covered the whole first turn, every page in it listed whole.
    const [pass] = turn.body.context.compactions
    expect(pass.covered).toHaveLength(81)
    expect(pass.covered[80].message.toolResponses[0].data === pageText(39)).toBe(true)
    const [sent] = await upstreamRequests('large-agent')
    expect(JSON.stringify(sent!.body).length).toBeLessThan(10_000)
  })
})

/** Appends `count` small events, a thousand per request: user and assistant in turn. */
async function seed(id: string, count: number) {
  for (let from = 0; from < count; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - from) }, (_, k) => {
      const i = from + k
      return { message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` } }
    })
    await append(id, batch)
  }
}

describe('300,000 events never compacted', () => {
  const COUNT = 300_000
  const id = newSessionId('long')

  it('are stored', async () => {
    await seed(id, COUNT)
    expect((await call('GET', `/v1/sessions/${id}`)).body.version).toBe(COUNT)
  })

  it('come back through paging, every one in order and intact', async () => {
    const { events } = await pageAll(id)
    expect(events).toHaveLength(COUNT)
    expect(events.every((event, i) => event.seq === i + 1 && event.message.content === `message ${i}`)).toBe(true)
  })

  it('make a view that is read whole, in both formats', async () => {
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.status).toBe(200)
    expect(view.body.events).toHaveLength(COUNT)
    expect(view.body.turns).toBe(COUNT / 2)
    expect(view.body.events.every((event: any, i: number) => event.message.content === `message ${i}`)).toBe(true)
    const openai = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(openai.status).toBe(200)
    expect(openai.body.messages).toHaveLength(COUNT)
    expect(openai.body.messages.at(-1)).toEqual({ role: 'assistant', content: `message ${COUNT - 1}` })
  })

  it('are compacted by /compact, answered 200 listing every covered event', async () => {
    const result = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastEvents: 20 } } } })
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    expect(result.body.covered).toHaveLength(COUNT - 20)
    expect(result.body.covered.at(-1).message.content).toBe(`message ${COUNT - 21}`)
    expect(result.body.preserved.map((event: any) => event.message.content)[0]).toBe(`message ${COUNT - 20}`)
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.events).toHaveLength(20)
  })
})

describe('300,000 events, then a turn', () => {
  it('compacts first, summarizing the newest covered events that fit the summary model, and answers the reply', async () => {
    const COUNT = 300_000
    const id = newSessionId('long-turn')
    await seed(id, COUNT)
    // The built-in policy for the default 8192-token context, its summarizer tagged to be found.
    const compaction = {
      trigger: { tokenCount: 4300 },
      strategy: { window: { tokenBudget: 2150 }, summarizer: { model: 'echo#long-summary' } },
    }
    const turn = await call('POST', `/v1/sessions/${id}/turns`, {
      body: { content: 'Where were we?', model: 'echo#long-turn', compaction },
    })
    expect(turn.status, turn.text.slice(0, 300)).toBe(200)
    expect(turn.body.reply.message.content).toBe('Echo: Where were we?')
    const [pass] = turn.body.context.compactions
    expect(pass.unchanged).toBe(false)
    expect(pass.covered.length).toBeGreaterThan(COUNT - 1000)
    expect(pass.covered[0].message.content).toBe('message 0')
    expect(pass.summary).toHaveLength(2)
    const view = await call('GET', `/v1/sessions/${id}/view`)
    expect(view.body.tokens).toBeLessThan(turn.body.context.budget)
    // The summary request held the newest covered events that fit the model, not all 300,000.
    const [request] = await upstreamRequests('long-summary')
    const prompt = request!.body.messages.at(-1)!.content!
    const last = pass.covered.at(-1).message.content
    expect(prompt).toContain(`${last}\n`)
    expect(prompt).not.toContain('message 0\n')
    expect(prompt.length).toBeLessThan(8192 * 4)
  })
})

describe('100,000 events exported and imported again in parts', () => {
  const COUNT = 100_000
  const PART = 20_000
  const [id, copy] = [newSessionId('moved'), newSessionId('moved-copy')]
  const exported = async (session: string) => {
    const result = await call('GET', `/v1/sessions/${session}/export`)
    expect(result.status, result.text.slice(0, 300)).toBe(200)
    return result.text.split('\n').filter((line) => line !== '')
  }

  it('are exported streamed, every event a line, and imported into a new id in parts of 20,000: the same events', async () => {
    await seed(id, COUNT)
    await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastEvents: 20 } } } })
    const lines = await exported(id)
    expect(lines).toHaveLength(COUNT + 2) // the session line, the events, the pass's boundary
    for (let from = 1; from < lines.length; from += PART) {
      const part = from === 1 ? lines.slice(0, PART + 1) : lines.slice(from, from + PART)
      const result = await call('POST', `/v1/sessions/${copy}/import`, {
        body: part.join('\n'),
        headers: { 'Content-Type': 'application/x-ndjson' },
      })
      expect(result.status, result.text.slice(0, 300)).toBe(200)
    }
    const again = await exported(copy)
    expect(again.length).toBe(lines.length)
    // Byte for byte, but for the session line (its id and times).
    expect(again.slice(1).every((line, i) => line === lines[i + 1])).toBe(true)
    const view = (await call('GET', `/v1/sessions/${copy}/view`)).body
    expect(view.events.map((event: any) => event.message.content)).toEqual(
      Array.from({ length: 20 }, (_, k) => `message ${COUNT - 20 + k}`),
    )
  })
})
