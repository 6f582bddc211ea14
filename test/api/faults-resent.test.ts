import { exports } from 'cloudflare:workers'
import { afterAll, describe, expect, it } from 'vitest'
import {
  call,
  expectEveryLogWhole,
  expectWholeLog,
  newSessionId,
  newTag,
  releaseUpstream,
  sseReader,
  tokenFor,
  until,
  upstreamRequests,
} from '../helpers'
import { send, shown, u } from '../support/messages-door'

// Every session these tests made: its log replays to its view, nothing left it but through a boundary.
afterAll(expectEveryLogWhole)

describe('a request its client sends again', () => {
  it('a Messages request whose connection drops mid-stream is stored all the same; its retry (x-stainless-retry-count: 1) answers the stored message without calling the model', async () => {
    const id = newSessionId('retry')
    const tag = newTag()
    const response = await exports.default.fetch(
      new Request('https://sessions.test/v1/messages', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${await tokenFor('alice')}`,
          'Content-Type': 'application/json',
          'anthropic-version': '2023-06-01',
          'X-Session-Id': id,
        },
        // The upstream streams the whole reply, then holds the end of its stream.
        body: JSON.stringify({ model: `holdend#${tag}`, max_tokens: 256, stream: true, messages: [u('Hello there')] }),
      }),
    )
    const stream = sseReader(response)
    await stream.until((frames) => frames.some((frame) => frame.event === 'content_block_delta'))
    await stream.cancel() // the connection drops
    await releaseUpstream(tag)
    const stored = async () => (await call('GET', `/v1/sessions/${id}/events`)).body.events?.length === 2
    await until(stored, 'the turn stored')
    const again = newTag()
    const retry = await send(id, { model: `echo#${again}`, messages: [u('Hello there')] }, { 'x-stainless-retry-count': '1' })
    expect(retry.status, retry.text).toBe(200)
    expect(retry.body.content[0].text).toBe('Echo: Hello there')
    expect(await upstreamRequests(again)).toHaveLength(0)
    expect(shown((await expectWholeLog(id)).events)).toEqual(['user:Hello there', 'assistant:Echo: Hello there'])
    // Claude Code's own retry says 0, but Claude Code always sends its whole history: in the
    // session its own id names, its session header makes it resent.
    const fromClaudeCode = (headers: Record<string, string>) =>
      call('POST', '/v1/messages', {
        body: { model: `echo#${again}`, max_tokens: 256, messages: [u('Hello there')] },
        headers: {
          'anthropic-version': '2023-06-01',
          'x-stainless-retry-count': '0',
          'x-claude-code-session-id': id,
          ...headers,
        },
      })
    expect((await fromClaudeCode({})).body.content[0].text).toBe('Echo: Hello there')
    expect(await upstreamRequests(again)).toHaveLength(0)
    // Where X-Session-Id names the session (runs may share it), or without either header, the same
    // message is asked again: a new turn (a retry must hold an assistant message).
    expect((await fromClaudeCode({ 'X-Session-Id': id })).status).toBe(200)
    expect(await upstreamRequests(again)).toHaveLength(1)
    const asked = await send(id, { model: `echo#${again}`, messages: [u('Hello there')] })
    expect(asked.status, asked.text).toBe(200)
    expect(await upstreamRequests(again)).toHaveLength(2)
  })

  it('a chat completion resent with x-stainless-retry-count answers its stored reply when it is the whole conversation, and is a new turn when it is not', async () => {
    const id = newSessionId('retry')
    const tag = newTag()
    const chat = (content: string, headers: Record<string, string> = {}) =>
      call('POST', '/v1/chat/completions', {
        body: { model: `echo#${tag}`, messages: [{ role: 'user', content }] },
        headers: { 'X-Session-Id': id, ...headers },
      })
    const first = await chat('Hi')
    const resent = await chat('Hi', { 'x-stainless-retry-count': '1' })
    expect(resent.status, resent.text).toBe(200)
    expect(resent.body.choices[0].message.content).toBe('Echo: Hi')
    expect(await upstreamRequests(tag)).toHaveLength(1)
    expect(resent.body.id).toBe(first.body.id)
    // A second question, then the first asked again and resent: the conversation holds more, so it is new.
    await chat('More')
    const again = await chat('More', { 'x-stainless-retry-count': '2' })
    expect(again.body.choices[0].message.content).toBe('Echo: More')
    expect(await upstreamRequests(tag)).toHaveLength(3)
    expect(shown((await expectWholeLog(id)).events)).toEqual([
      'user:Hi',
      'assistant:Echo: Hi',
      'user:More',
      'assistant:Echo: More',
      'user:More',
      'assistant:Echo: More',
    ])
  })
})
