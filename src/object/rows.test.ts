import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it, vi } from 'vitest'
import { append, assistant, call, newSessionId, turn, until, user } from '../../test/helpers'
import { countRows, type RowCounts } from '../../test/support/row-counts'
import { sessionStub } from './address'

/** A session of `events` messages ("Message <n> rollout"), written 500 a request. */
async function sessionOf(events: number) {
  const id = newSessionId()
  for (let from = 0; from < events; from += 500) {
    const batch = Array.from({ length: Math.min(500, events - from) }, (_, i) =>
      (from + i) % 2 === 0 ? user(`Message ${from + i} rollout`) : assistant(`Message ${from + i} rollout`),
    )
    await append(id, batch)
  }
  return id
}

/**
 * The rows the session's object read and wrote while `work` ran, counted at its storage's
 * `sql.exec` — with the alarm that hands over the notices `work` wrote and its new events to the
 * search across sessions (the sessions here never expire: their alarm is cleared once it has run).
 */
async function rowsBy(id: string, work: () => Promise<unknown>): Promise<RowCounts> {
  const stub = sessionStub(env, 'alice', id)
  let rows: ReturnType<typeof countRows> | undefined
  // Its alarm has run when the outbox (its table and the session row's notices) is empty, every
  // event was handed to the search across sessions (its last write) and no alarm is set (while it
  // runs, none is).
  const handedOver = () =>
    until(
      () =>
        runInDurableObject(stub, async (_instance, state) => {
          const exec = rows?.uncounted ?? state.storage.sql.exec.bind(state.storage.sql)
          const inTable = exec<{ n: number }>('SELECT count(*) AS n FROM outbox').one().n
          const inRow = exec<{ notices: string | null }>('SELECT notices FROM session').one().notices
          const behind = exec<{ n: number }>(
            'SELECT (SELECT version FROM session) - coalesce((SELECT shipped FROM search_feed), 0) AS n',
          ).one().n
          return inTable === 0 && inRow === null && behind <= 0 && (await state.storage.getAlarm()) === null
        }),
      'the hand-over',
    )
  // What earlier requests left to hand over is not counted.
  await handedOver()
  rows = await runInDurableObject(stub, (_instance, state) => countRows(state.storage))
  await work()
  await handedOver()
  return runInDurableObject(stub, () => rows!.take())
}
const rowsReadBy = async (id: string, work: () => Promise<unknown>) => (await rowsBy(id, work)).rowsRead

const get = async (path: string) => {
  const result = await call('GET', path)
  if (result.status !== 200) throw new Error(`${path}: ${result.status} ${result.text}`)
  return result.body
}

/** `count` tool groups of an agent loop (a call and its result of ~2 KB), from `from` on. */
const toolGroups = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const id = `call_${from + i}`
    return [
      { message: { role: 'assistant', content: null, toolCalls: [{ id, name: 'read_file', arguments: '{}' }] } },
      {
        message: {
          role: 'tool',
          content: null,
          toolResponses: [{ id, name: 'read_file', data: `file ${from + i} `.repeat(200) }],
        },
      },
    ]
  }).flat()

describe('rows read by the read paths (what the platform bills)', () => {
  it('a clearing pass reads the same rows whether the view it keeps holds 40 tool groups or 160: it names what it keeps from memory, not the log', async () => {
    const clearing = { strategy: { clearToolResults: { keep: 3 } } }
    const counts: RowCounts[] = []
    for (const groups of [40, 160]) {
      const id = newSessionId()
      await append(id, [user('Read every file and report.'), ...toolGroups(0, groups)])
      expect((await call('POST', `/v1/sessions/${id}/compact`, { body: clearing })).body.unchanged).toBe(false)
      await append(id, toolGroups(groups, 1))
      counts.push(
        await rowsBy(id, async () => {
          const result = await call('POST', `/v1/sessions/${id}/compact`, { body: clearing })
          expect(result.body.boundary.boundary.cleared).toHaveLength(groups - 2)
          expect(result.body.preserved).toHaveLength(2 * groups + 3)
        }),
      )
    }
    const [small, large] = counts as [RowCounts, RowCounts]
    expect(large.rowsRead).toBe(small.rowsRead)
    expect(large.rowsRead).toBeLessThan(40)
  })

  it('a page of events and a search read the rows they answer with, whatever the log’s length', async () => {
    const sizes = [600, 2_400]
    const read: Record<string, number[]> = { page: [], one: [], search: [] }
    for (const size of sizes) {
      const id = await sessionOf(size)
      await get(`/v1/sessions/${id}/search?q=rollout&limit=1`) // the index caught up, the record read
      read.page!.push(await rowsReadBy(id, () => get(`/v1/sessions/${id}/events?after=200&limit=100`)))
      read.one!.push(await rowsReadBy(id, () => get(`/v1/sessions/${id}/events?after=200&limit=1`)))
      const hits = await rowsReadBy(id, async () => {
        const body = await get(`/v1/sessions/${id}/search?q=${encodeURIComponent('"Message 301"')}`)
        expect(body.hits.map((hit: { event: { seq: number } }) => hit.event.seq)).toEqual([302])
      })
      read.search!.push(hits)
    }
    // 100 events are 100 rows (a statement of them, read as they are written out), not a batch read ahead.
    for (const rows of read.page!) expect(rows).toBe(100)
    for (const rows of read.one!) expect(rows).toBe(1)
    // The match in the index, its snippet and its one event.
    for (const rows of read.search!) expect(rows).toBeLessThanOrEqual(10)
    expect(new Set(read.search).size).toBe(1)
  })

  it('a ranked search reads the same rows at 2,400 events as at 4,800, its words in every event: bounded by its caps, not the log', async () => {
    const read: number[] = []
    for (const size of [2_400, 4_800]) {
      const id = await sessionOf(size)
      // A question of words every event holds ("message", "rollout"), and a hostile one of 32 such words.
      const questions = ['which message was about the rollout?', Array.from({ length: 32 }, () => 'rollout message').join(' ')]
      for (const q of questions) await get(`/v1/sessions/${id}/search?q=${encodeURIComponent(q)}`) // the object warm
      read.push(
        await rowsReadBy(id, async () => {
          for (const q of questions) {
            const body = await get(`/v1/sessions/${id}/search?q=${encodeURIComponent(q)}&limit=20`)
            expect(body.hits).toHaveLength(20)
          }
        }),
      )
    }
    expect(read[1]).toBe(read[0])
  })

  it('a search reads the same rows however many rewinds are behind it: each REWIND is read once by its object, not by every search', async () => {
    const read: number[] = []
    for (const rewinds of [1, 12]) {
      const id = await sessionOf(600)
      for (let i = 0; i < rewinds; i++) {
        const [edited] = (await append(id, [user(`a question, version ${i}`)])).events
        const result = await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: edited!.id, position: 'before' } })
        expect(result.status, result.text).toBe(200)
      }
      const search = () => get(`/v1/sessions/${id}/search?q=${encodeURIComponent('"Message 301"')}`)
      await search() // the index caught up, the lineage walked
      read.push(
        await rowsReadBy(id, async () => {
          const body = await search()
          expect(body.hits.map((hit: { abandoned: boolean }) => hit.abandoned)).toEqual([false])
        }),
      )
    }
    expect(read[1]).toBe(read[0])
  })

  it('the whole log read a page at a time reads each event once', async () => {
    const id = await sessionOf(1_000)
    await get(`/v1/sessions/${id}/events?limit=1`)
    let pages = 0
    const rows = await rowsReadBy(id, async () => {
      for (let after: number | null = 0; after !== null; pages++) {
        after = (await get(`/v1/sessions/${id}/events?after=${after}&limit=300`)).nextAfter
      }
    })
    expect(pages).toBe(4)
    expect(rows).toBe(1_000)
  })

  it('an exchange appended writes 7 rows, and the search index merges once per 8 appends, not after each; the alarm then hands them over', async () => {
    const id = await sessionOf(10)
    const stub = sessionStub(env, 'alice', id)
    await rowsBy(id, async () => {}) // what the seeding left to hand over, handed over
    const exchanges = 16
    const rows = await runInDurableObject(stub, (_instance, state) => countRows(state.storage))
    // The index's merges wait on timers (a merge a little after the appends that made it): here
    // each runs, in the object, before the next append is sent — whatever the machine's load. The
    // code's clock an hour ahead: the alarm the appends set waits for the test to run it.
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] })
    vi.setSystemTime(Date.now() + 3600_000)
    try {
      for (let i = 0; i < exchanges; i++) {
        await append(id, [user(`question ${i}`), assistant(`answer ${i}`)])
        await runInDurableObject(stub, () => vi.runAllTimers())
      }
    } finally {
      vi.useRealTimers()
    }
    // Each: its 2 events (row and id index each), their 2 index entries, the session row; and the
    // index's 2 merges, each a row written (one per 8 appends, not one per append).
    const appended = await runInDurableObject(stub, () => rows.take())
    expect(appended.rowsWritten).toBe(exchanges * 7 + 2)
    // Then one hand-over for them all: the outbox looked at twice (empty: a row each), the 32
    // events read and sent, how far it went noted (a row read and written).
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect(await runInDurableObject(stub, () => rows.take())).toEqual({ rowsRead: 2 + 2 * exchanges + 1, rowsWritten: 1 })
  })

  it('a whole turn reads and writes the same few rows whatever the log’s length: its two events, the session row, no scan', async () => {
    const counts: RowCounts[] = []
    for (const size of [600, 2_400]) {
      const id = await sessionOf(size)
      // A long log, a short view (the turn's prompt must fit the test model's context).
      await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 2 } } } })
      await turn(id, { content: 'warm the object', compaction: false })
      counts.push(
        await rowsBy(id, async () => {
          const result = await turn(id, { content: 'how many rows?', compaction: false })
          expect(result.status).toBe(200)
        }),
      )
    }
    // Written: each event's row and its id index entry, its search index entry, the session row
    // (which holds the turn's notice); then the alarm's hand-over reads 3 and writes the row again,
    // and hands the two events to the search across sessions: reads them, and notes how far it
    // went (a row read and written).
    expect(counts).toEqual([
      { rowsRead: 9, rowsWritten: 9 },
      { rowsRead: 9, rowsWritten: 9 },
    ])
  })

  it('a rewind and a regenerate read and write the same rows whatever the log’s length: the view and the turn, never the log', async () => {
    const counts: { rewind: RowCounts; back: RowCounts; regenerate: RowCounts }[] = []
    for (const size of [600, 2_400]) {
      const id = await sessionOf(size)
      await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 2 } } } })
      const asked = await turn(id, { content: 'the question', compaction: false })
      await turn(id, { content: 'warm the object', compaction: false })
      const rewind = await rowsBy(id, async () => {
        const result = await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: asked.body.reply.id } })
        expect(result.body.abandoned).toBe(2)
      })
      const back = await rowsBy(id, async () => {
        const result = await turn(id, {
          content: 'the question, edited',
          rewind: { to: asked.body.events[0].id, position: 'before' },
          compaction: false,
        })
        expect(result.status, result.text).toBe(200)
      })
      const regenerate = await rowsBy(id, async () => {
        const result = await turn(id, { regenerate: true, compaction: false })
        expect(result.status, result.text).toBe(200)
      })
      counts.push({ rewind, back, regenerate })
    }
    const [small, large] = counts as [(typeof counts)[0], (typeof counts)[0]]
    for (const path of ['rewind', 'back', 'regenerate'] as const) {
      expect(large[path].rowsRead, path).toBe(small[path].rowsRead)
      // Writes alike, bar the search index's merge (a row, once per 8 appends, whenever it falls).
      expect(Math.abs(large[path].rowsWritten - small[path].rowsWritten), path).toBeLessThanOrEqual(1)
    }
  })

  it('a door request editing its newest question reads the same rows whatever the lineage’s length: the request’s window, not the 10,000-message lookback', async () => {
    const read: number[] = []
    for (const size of [600, 2_400]) {
      const id = await sessionOf(size)
      await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 2 } } } })
      for (const content of ['q1', 'q2']) await turn(id, { content, compaction: false })
      // What a client shows of the end of the lineage (summaries are the service's): it edits q2.
      const { version } = await get(`/v1/sessions/${id}`)
      const shown = (await get(`/v1/sessions/${id}/events?after=${version - 30}&limit=100`)).events
        .filter((e: any) => e.type === 'MESSAGE' && !e.synthetic)
        .map((e: any) => ({ role: e.message.role, content: e.message.content }))
        .slice(-20, -2)
      const edit = (content: string) =>
        call('POST', '/v1/chat/completions', {
          body: { model: 'echo', messages: [...shown, { role: 'user', content }] },
          headers: { 'X-Session-Id': id },
        })
      expect((await edit('q2, edited once')).headers.get('X-Rewound')).toBe('2')
      read.push(
        await rowsReadBy(id, async () => {
          const result = await edit('q2, edited twice')
          expect(result.status, result.text).toBe(200)
          expect(result.headers.get('X-Rewound')).toBe('2')
        }),
      )
    }
    expect(read[1]).toBe(read[0])
    expect(read[0]).toBeLessThan(200)
  })

  it('an undo and a pin read and write the same rows whatever the log’s length: the view and the pass, never the log', async () => {
    const counts: { undo: RowCounts; pin: RowCounts; pinnedPass: RowCounts }[] = []
    for (const size of [600, 2_400]) {
      const id = await sessionOf(size)
      await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 100 } } } })
      await append(id, [user('question one'), assistant('answer one'), user('question two'), assistant('answer two')])
      const pass = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 50 } } } })
      expect(pass.body.unchanged).toBe(false)
      const undo = await rowsBy(id, async () => {
        const result = await call('POST', `/v1/sessions/${id}/compactions/${pass.body.boundary.id}/undo`)
        expect(result.status, result.text).toBe(200)
      })
      const view = (await call('GET', `/v1/sessions/${id}/view`)).body.events
      const pin = await rowsBy(id, async () => {
        const result = await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: [view[0].id] } })
        expect(result.status, result.text).toBe(200)
      })
      const pinnedPass = await rowsBy(id, async () => {
        const result = await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 50 } } } })
        expect(result.body.boundary.boundary.held).toEqual([view[0].id])
      })
      counts.push({ undo, pin, pinnedPass })
    }
    const [small, large] = counts as [(typeof counts)[0], (typeof counts)[0]]
    for (const path of ['undo', 'pin', 'pinnedPass'] as const) {
      expect(large[path].rowsRead, path).toBe(small[path].rowsRead)
      expect(Math.abs(large[path].rowsWritten - small[path].rowsWritten), path).toBeLessThanOrEqual(1)
    }
  })
})
