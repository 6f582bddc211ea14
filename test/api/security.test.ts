import { env } from 'cloudflare:workers'
import { sign } from 'hono/jwt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { append, call, expectError, newSessionId, newTag, SECRET, tokenFor, turn, twoTurns, user } from '../helpers'

describe('secrets and bearer tokens', () => {
  afterEach(() => vi.restoreAllMocks())

  it('never appear in logs or error messages', async () => {
    const logged: string[] = []
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    }
    const answers: string[] = []
    const record = async (promise: Promise<{ text: string }>) => answers.push((await promise).text)

    const now = Math.floor(Date.now() / 1000)
    const tokens = [
      await tokenFor('alice', { exp: now - 600 }),
      await tokenFor('alice', {}, 'wrong-secret'),
      await sign({ sub: 'alice', exp: now + 600 }, SECRET, 'HS512'),
      'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.',
    ]
    for (const token of tokens) {
      await record(call('GET', '/v1/sessions', { user: null, headers: { Authorization: `Bearer ${token}` } }))
    }
    // An upstream whose error echoes the API key it was sent, for a turn and for a summary.
    const id = newSessionId()
    await append(id, twoTurns())
    const leaked = await turn(id, { content: 'hi', model: `leak#${newTag()}`, compaction: false })
    expectError(leaked, 502, 'upstream_error')
    answers.push(leaked.text)
    await record(
      call('POST', `/v1/sessions/${id}/compact`, {
        body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `leak#${newTag()}` } } },
      }),
    )
    const validToken = await tokenFor('alice')
    await record(call('GET', `/v1/sessions/${id}/nope`, { user: null, headers: { Authorization: `Bearer ${validToken}` } }))

    expect(leaked.body.error.message).toContain('[redacted]')
    expect(logged.join('\n')).toContain('summarizer failed') // the capture sees the objects' logs too
    const everything = [...logged, ...answers].join('\n')
    for (const secret of [SECRET, env.OPENAI_API_KEY!, validToken, ...tokens.slice(0, 3)]) {
      expect(everything).not.toContain(secret)
    }
  })
})

describe("another user's session", () => {
  it('is answered exactly like an absent one, by the same code path, leaving no trace', async () => {
    const id = newSessionId('private')
    await append(id, [user('secret')], 'alice')
    const theirs = await call('GET', `/v1/sessions/${id}/view`, { user: 'eve' })
    const absent = await call('GET', `/v1/sessions/${newSessionId('nothing')}/view`, { user: 'eve' })
    expect([theirs.status, theirs.text]).toEqual([absent.status, absent.text])
    // Eve's probe went to Eve's own (empty) object: Alice's session is untouched and Eve has none.
    expect((await call('GET', '/v1/sessions', { user: 'eve' })).body.sessions).toEqual([])
    expect((await call('GET', `/v1/sessions/${id}`, { user: 'alice' })).body.version).toBe(1)
  })
})
