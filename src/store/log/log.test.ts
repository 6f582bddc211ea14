import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { newSessionId } from '../../../test/helpers'
import { atSeq, defaultEstimator, newCompactionEvent, newMessageEvent } from '../../core'
import { Sql } from '../../sql'
import { SessionLog } from './log'
import { migrate } from './migrations'

describe('the log', () => {
  it('writes each event’s JSON from its row as the event object serializes, keys in the same order', async () => {
    await runInDurableObject(env.SESSIONS.getByName(`log-tests/${newSessionId()}`), async (_instance, state) => {
      migrate(state.storage)
      const log = new SessionLog(new Sql(state.storage.sql))
      const message = newMessageEvent(
        {
          id: 'm1',
          message: { role: 'assistant', content: 'é "quoted"\n', toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }] },
          timestamp: '2026-12-01T00:00:00.000Z',
          metadata: { model: 'm', nested: { n: [1, 2] } },
          synthetic: true,
        },
        defaultEstimator,
      )
      const boundary = newCompactionEvent(
        { id: 'b1', timestamp: '2026-12-01T00:00:01.000Z', metadata: { by: 'test' } },
        {
          pinned: [],
          summary: ['m1'],
          preserved: [],
          coveredEventCount: 3,
          tokensEstimatedSaved: 7,
          tokensBefore: 9,
          tokensAfter: 2,
        },
      )
      const events = [atSeq(message, 1), atSeq(boundary, 2)]
      for (const event of events) log.insert(event)
      const rows = [...log.jsonRange(1, 2)]
      expect(rows.map((row) => row.json)).toEqual(events.map((event) => JSON.stringify(event)))
      expect(rows.map((row) => JSON.stringify(row.event()))).toEqual(rows.map((row) => row.json))
    })
  })
})
