import { createParser } from 'eventsource-parser'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag } from './helpers'

/** The events of a stream read so far. */
function events(text: string): { event: string; data: any }[] {
  const out: { event: string; data: any }[] = []
  createParser({ onEvent: (m) => out.push({ event: m.event ?? 'message', data: JSON.parse(m.data) }) }).feed(text)
  return out
}

describe('a streamed Messages answer whose turn waits', () => {
  it('starts within 10 s with pings (headers sent, nothing else yet), then the message as usual', async () => {
    const id = newSessionId('keepalive')
    const tag = newTag()
    const response = await fetch(`${inject('apiBase')}/messages`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${inject('apiKey')}`,
        'Content-Type': 'application/json',
        'anthropic-version': '2023-06-01',
        'X-Session-Id': id,
      },
      body: JSON.stringify({
        model: `hold#${tag}`,
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'Take your time' }],
      }),
    })
    // The fake upstream holds the model call until released: the answer began without it.
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (events(text).length === 0) text += decoder.decode((await reader.read()).value, { stream: true })
    expect(events(text).map((e) => e.event)).toEqual(['ping'])
    const released = await fetch(`${inject('upstreamUrl')}/__release?tag=${tag}`, { method: 'POST' })
    expect(((await released.json()) as { released: number }).released).toBe(1)
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += decoder.decode(chunk.value, { stream: true })
    const frames = events(text).filter((e) => e.event !== 'ping')
    expect(frames[0]!.event).toBe('message_start')
    expect(frames.at(-1)!.event).toBe('message_stop')
    expect(
      frames
        .filter((f) => f.event === 'content_block_delta')
        .map((f) => f.data.delta.text)
        .join(''),
    ).toBe('Echo: Take your time')
    const log = await logOf(id)
    expect(log.map((e) => e.message.content)).toEqual(['Take your time', 'Echo: Take your time'])
  })
})
