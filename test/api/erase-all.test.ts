import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { sessionStub, userIndexStub } from '../../src/object/address'
import { append, assistant, call, expectError, newSessionId, until, user } from '../helpers'

const owner = () => `erase-${newSessionId()}`
const lines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))

describe('GET /v1/export', () => {
  it('streams every session of the caller as jsonl: each session line, then its events', async () => {
    const who = owner()
    const [a, b] = [newSessionId('all'), newSessionId('all')]
    await append(a, [user('in a'), assistant('reply a')], who)
    await append(b, [user('in b')], who)
    await append(newSessionId('other'), [user('not mine')])
    const result = await call('GET', '/v1/export', { user: who })
    expect(result.status, result.text).toBe(200)
    expect(result.headers.get('Content-Type')).toBe('application/x-ndjson; charset=utf-8')
    const all = lines(result.text)
    const headers = all.filter((line) => line.type === 'session')
    expect(headers.map((header) => header.id).sort()).toEqual([a, b].sort())
    expect(
      all
        .filter((line) => line.type === 'MESSAGE')
        .map((line) => line.message.content)
        .sort(),
    ).toEqual(['in a', 'in b', 'reply a'])
    // Each session's events follow its own line.
    const at = all.findIndex((line) => line.type === 'session' && line.id === a)
    expect(all.slice(at + 1, at + 3).map((line) => line.message.content)).toEqual(['in a', 'reply a'])
  })
})

describe('DELETE /v1/sessions {"all": true}', () => {
  it('from its answer on, none of the caller’s sessions can be read or listed; one created afterwards is new; another user’s untouched', async () => {
    const who = owner()
    const ids = [newSessionId('gone'), newSessionId('gone'), newSessionId('gone')]
    for (const id of ids) await append(id, [user(`in ${id}`)], who)
    const mine = newSessionId('kept')
    await append(mine, [user('alice keeps this')])
    const erased = await call('DELETE', '/v1/sessions', { user: who, body: { all: true } })
    expect(erased.status, erased.text).toBe(202)
    expect(erased.body).toEqual({ erased: 3 })
    for (const id of ids.slice(0, 2)) expectError(await call('GET', `/v1/sessions/${id}/events`, { user: who }), 404, 'not_found')
    expect((await call('GET', '/v1/sessions', { user: who })).body.sessions).toEqual([])
    expect((await call('GET', '/v1/export', { user: who })).text).toBe('')
    const again = await append(ids[0]!, [user('a new start')], who)
    expect(again.version).toBe(1)
    expect((await call('GET', '/v1/sessions', { user: who })).body.sessions.map((s: any) => s.id)).toEqual([ids[0]])
    expect((await call('GET', `/v1/sessions/${mine}`)).status).toBe(200)
    // One nobody read since: its alarm (due at once) wipes its storage.
    const tables = () =>
      runInDurableObject(sessionStub(env, who, ids[2]!), (_instance, state) =>
        state.storage.sql
          .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'")
          .toArray(),
      )
    await until(async () => (await tables()).length === 0, 'its storage wiped')
  })

  it('survives a restart: an erasure whose request swept nothing is swept by the index’s alarm', async () => {
    const who = owner()
    const ids = [newSessionId('swept'), newSessionId('swept')]
    for (const id of ids) await append(id, [user('soon gone')], who)
    const index = userIndexStub(env, who)
    await index.eraseAll(who, new Date().toISOString())
    // Not listed at once; the objects themselves still hold them until the sweep.
    expect((await call('GET', '/v1/sessions', { user: who })).body.sessions).toEqual([])
    await evictDurableObject(index)
    expect(await runDurableObjectAlarm(userIndexStub(env, who))).toBe(true)
    for (const id of ids) expectError(await call('GET', `/v1/sessions/${id}`, { user: who }), 404, 'not_found')
    expect(await userIndexStub(env, who).erased(10)).toEqual([])
  })

  it('asks for {"all": true}', async () => {
    for (const body of [{}, { all: false }, { all: 'yes' }])
      expectError(await call('DELETE', '/v1/sessions', { user: owner(), body }), 400, 'invalid_request')
  })
})
