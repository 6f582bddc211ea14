import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import {
  append,
  assistant,
  call,
  type Frame,
  newSessionId,
  newTag,
  releaseUpstream,
  sseReader,
  tokenFor,
  turn,
  untilUpstreamReceived,
  user,
} from '../helpers'

/** Opens a session's live stream as alice. */
async function follow(id: string, query = '', headers: Record<string, string> = {}) {
  const response = await exports.default.fetch(
    new Request(`https://sessions.test/v1/sessions/${id}/stream${query}`, {
      headers: { Authorization: `Bearer ${await tokenFor('alice')}`, ...headers },
    }),
  )
  return response
}
const events = (frames: Frame[]) => frames.filter((frame) => frame.event === 'event')
const seqs = (frames: Frame[]) => events(frames).map((frame) => frame.data.seq)

describe('GET /v1/sessions/:id/stream', () => {
  it('sends the stored events after `after`, then each event as it is written, each with its seq as the id', async () => {
    const id = newSessionId('live')
    await append(id, [user('q1'), assistant('a1'), user('q2')])
    const response = await follow(id, '?after=1')
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toContain('text/event-stream')
    const stream = sseReader(response)
    const caughtUp = await stream.until((frames) => events(frames).length === 2)
    expect(seqs(caughtUp)).toEqual([2, 3])
    expect(caughtUp.map((frame) => frame.id)).toEqual(['2', '3'])
    expect(events(caughtUp)[0]!.data).toMatchObject({ type: 'MESSAGE', message: { content: 'a1' }, pinned: false })
    await append(id, [assistant('a2')])
    const live = await stream.until((frames) => events(frames).length === 3)
    expect(events(live)[2]!.data).toMatchObject({ seq: 4, message: { content: 'a2' } })
    await stream.cancel()
  })

  it('starts after Last-Event-ID, which wins over `after`; without either sends only what is written next', async () => {
    const id = newSessionId('live')
    await append(id, [user('q1'), assistant('a1'), user('q2')])
    const resumed = sseReader(await follow(id, '?after=0', { 'Last-Event-ID': '2' }))
    expect(seqs(await resumed.until((frames) => events(frames).length === 1))).toEqual([3])
    const fresh = sseReader(await follow(id))
    await append(id, [assistant('a2')])
    expect(seqs(await fresh.until((frames) => events(frames).length === 1))).toEqual([4])
    expect(seqs(await resumed.until((frames) => events(frames).length === 2))).toEqual([3, 4])
    await resumed.cancel()
    await fresh.cancel()
  })

  it('streams a turn in progress as deltas, even one its client did not stream, and its events once written', async () => {
    const id = newSessionId('live')
    await append(id, [user('hello'), assistant('hi')])
    const stream = sseReader(await follow(id))
    const answered = await turn(id, { content: 'tell me more' })
    expect(answered.status).toBe(200)
    const frames = await stream.until((all) => events(all).length === 2)
    const deltas = frames.filter((frame) => frame.event === 'delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.map((frame) => frame.data.text).join('')).toBe(answered.body.reply.message.content)
    const [question] = events(frames)
    expect(deltas.every((frame) => frame.data.turnId === question!.data.id)).toBe(true)
    // The deltas come before the events that store them.
    expect(frames.findIndex((frame) => frame.event === 'delta')).toBeLessThan(frames.indexOf(question!))
    expect(events(frames)[1]!.data.id).toBe(answered.body.reply.id)
    await stream.cancel()
  })

  it('gives a subscriber that attaches mid-turn the text so far in one delta, then the rest', async () => {
    const id = newSessionId('live')
    await append(id, [user('hello'), assistant('hi')])
    const tag = newTag()
    const turnResponse = exports.default.fetch(
      new Request(`https://sessions.test/v1/sessions/${id}/turns`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'one two three', model: `holdend#${tag}`, stream: true }),
      }),
    )
    await untilUpstreamReceived(tag)
    const own = sseReader(await turnResponse)
    // The turn's own stream has every piece: the service has them too.
    await own.until(
      (frames) =>
        frames
          .filter((f) => f.event === 'delta')
          .map((f) => f.data.text)
          .join('') === 'Echo: one two three',
    )
    const stream = sseReader(await follow(id))
    const [sofar] = await stream.until((frames) => frames.length === 1)
    expect(sofar).toMatchObject({ event: 'delta', data: { text: 'Echo: one two three' } })
    await releaseUpstream(tag)
    const frames = await stream.until((all) => events(all).length === 2)
    expect(events(frames).map((frame) => frame.data.message.role)).toEqual(['user', 'assistant'])
    expect(sofar!.data.turnId).toBe(events(frames)[0]!.data.id)
    await own.rest()
    await stream.cancel()
    // Once the reply is written it is an event, never text in progress again.
    const late = sseReader(await follow(id, '?after=0'))
    const caughtUp = await late.until((all) => events(all).length === 4)
    expect(caughtUp.filter((frame) => frame.event === 'delta')).toEqual([])
    await late.cancel()
  })

  it('catches up with a long backlog in parts, every event once and in order', async () => {
    const id = newSessionId('live')
    const big = 'x'.repeat(400_000)
    await append(
      id,
      Array.from({ length: 6 }, (_, i) => (i % 2 ? assistant(`${i} ${big}`) : user(`${i} ${big}`))),
    )
    const stream = sseReader(await follow(id, '?after=0'))
    const frames = await stream.until((all) => events(all).length === 6)
    expect(seqs(frames)).toEqual([1, 2, 3, 4, 5, 6])
    await append(id, [user('after the backlog')])
    expect(seqs(await stream.until((all) => events(all).length === 7))).toEqual([1, 2, 3, 4, 5, 6, 7])
    await stream.cancel()
  })

  it('ends when the session expires', async () => {
    const id = newSessionId('live')
    expect((await call('POST', '/v1/sessions', { body: { id, ttlSeconds: 1 } })).status).toBe(201)
    const stream = sseReader(await follow(id))
    expect(await stream.rest()).toEqual([])
    expect((await call('GET', `/v1/sessions/${id}`)).status).toBe(404)
  })

  it('ends when the session is deleted; 404 for a session that does not exist or is another user’s; 400 for a bad Last-Event-ID', async () => {
    const id = newSessionId('live')
    await append(id, [user('q')])
    const stream = sseReader(await follow(id))
    expect((await call('DELETE', `/v1/sessions/${id}`)).status).toBe(204)
    expect(await stream.rest()).toEqual([])
    expect((await follow(newSessionId('absent'))).status).toBe(404)
    const other = newSessionId('bob')
    await append(other, [user('q')], 'bob')
    expect((await follow(other)).status).toBe(404)
    const bad = await follow(id, '', { 'Last-Event-ID': 'yesterday' })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toMatch(/last-event-id/i)
    expect((await follow(id, '?after=-1')).status).toBe(400)
  })
})
