import { evictDurableObject, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { requestShardStub } from '../object/address'
import { requestLimitOf } from '../object/limits'

let users = 0
const newUser = () => `sharded-${Date.now().toString(36)}-${++users}`

/** What each of a user's shards counted this minute, read in the objects. */
const counted = (userId: string, shards: number) =>
  Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      runInDurableObject(requestShardStub(env, userId, shard), (_instance, state) => {
        const row = state.storage.sql.exec<{ used: number }>('SELECT used FROM requests').toArray()[0]
        return row?.used ?? 0
      }),
    ),
  )

/** Admits `count` requests, 32 at a time as concurrent requests would come: how many were admitted, and the refusals. */
async function admitMany(userId: string, limit: number, count: number) {
  const results = []
  for (let sent = 0; sent < count; sent += 32)
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(32, count - sent) }, () => requestLimitOf(env, userId, limit).admit()),
      )),
    )
  return {
    admitted: results.filter((refusal) => refusal === null).length,
    refusals: results.filter((refusal) => refusal !== null),
  }
}

// Every test counts within one window, whatever the wall clock: its minute starts 10 s before.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 0, 10))
})
afterEach(() => {
  vi.useRealTimers()
})

describe('a request limit split over shards', () => {
  it('admits exactly the limit in a minute, spread over each shard’s share, and refuses the next until the minute turns', async () => {
    const user = newUser()
    const { admitted, refusals } = await admitMany(user, 300, 340)
    expect(admitted).toBe(300)
    expect(await counted(user, 3)).toEqual([100, 100, 100])
    expect(refusals).toHaveLength(40)
    for (const refusal of refusals)
      expect(refusal).toEqual({ scope: 'requests', limit: 300, resetAt: Date.UTC(2026, 11, 1, 12, 1, 0) })
    vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 1, 0))
    expect(await requestLimitOf(env, user, 300).admit()).toBeNull()
  })

  it('a request taken back is admitted again, from whichever shard counted one', async () => {
    const user = newUser()
    expect((await admitMany(user, 200, 200)).admitted).toBe(200)
    expect(await requestLimitOf(env, user, 200).admit()).not.toBeNull()
    await requestLimitOf(env, user, 200).refund()
    expect((await counted(user, 2)).reduce((sum, used) => sum + used, 0)).toBe(199)
    expect(await requestLimitOf(env, user, 200).admit()).toBeNull()
    expect(await requestLimitOf(env, user, 200).admit()).not.toBeNull()
  })

  it('other users are unaffected, and a shard keeps its count when its object restarts', async () => {
    const [user, other] = [newUser(), newUser()]
    expect((await admitMany(user, 100, 100)).admitted).toBe(100)
    await evictDurableObject(requestShardStub(env, user, 0))
    vi.setSystemTime(Date.UTC(2026, 11, 1, 12, 0, 12)) // past what this isolate remembers of the refusal
    expect(await requestLimitOf(env, user, 100).admit()).toMatchObject({ scope: 'requests', limit: 100 })
    expect(await requestLimitOf(env, other, 100).admit()).toBeNull()
  })
})
