/** A session whose background pass waits at the fake upstream for its summary: for tests of what may happen meanwhile. */
import { expect } from 'vitest'
import { append, assistant, call, newSessionId, newTag, untilUpstreamReceived, user } from '../helpers'
import { u } from './messages-door'

/**
 * A session (q1, r1) whose door turn (q2) has started its policy's pass in the background: the
 * pass waits at the upstream for its summary, held under `passTag`.
 */
export async function passWaiting(prefix: string) {
  const passTag = newTag()
  const id = newSessionId(prefix)
  const policy = { trigger: { always: true }, strategy: { window: { lastTurns: 1 }, summarizer: { model: `hold#${passTag}` } } }
  expect((await call('POST', '/v1/sessions', { body: { id, policy } })).status).toBe(201)
  await append(id, [user('q1', 'u1'), assistant('r1', 'a1')])
  const door = await call('POST', '/v1/chat/completions', {
    body: { model: 'echo', messages: [u('q1'), { role: 'assistant', content: 'r1' }, u('q2')] },
    headers: { 'X-Session-Id': id },
  })
  expect(door.status, door.text).toBe(200)
  await untilUpstreamReceived(passTag)
  return { id, passTag }
}
