/**
 * Odd input meets the real app: what is stored is exactly what was sent, or a 400 naming the
 * field; a stored call a provider would refuse never breaks a later prompt.
 */
import { exports } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { append, call, expectError, newSessionId, newTag, tokenFor, turn, upstreamRequests, user, wholeLog } from '../helpers'

describe('stored exactly as sent', () => {
  it('keeps every metadata key, `__proto__` included, on events and sessions', async () => {
    const id = newSessionId()
    const metadata = '{"__proto__":{"polluted":true},"constructor":"c","toString":1,"nested":{"__proto__":2}}'
    const body = `{"events":[{"message":{"role":"user","content":"hi"},"metadata":${metadata}}]}`
    const appended = await call('POST', `/v1/sessions/${id}/events`, { body })
    expect(appended.status).toBe(201)
    const expected = JSON.parse(metadata)
    expect(Object.keys(expected)).toEqual(['__proto__', 'constructor', 'toString', 'nested'])
    expect(JSON.parse(appended.text).events[0].metadata).toEqual(expected)
    const [event] = JSON.parse((await call('GET', `/v1/sessions/${id}/events`)).text).events
    expect(Object.keys(event.metadata)).toEqual(['__proto__', 'constructor', 'toString', 'nested'])
    expect(event.metadata).toEqual(expected)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()

    const session = newSessionId()
    const created = await call('POST', '/v1/sessions', { body: `{"id":"${session}","metadata":${metadata}}` })
    expect(created.status).toBe(201)
    expect(JSON.parse((await call('GET', `/v1/sessions/${session}`)).text).metadata).toEqual(expected)
  })

  it('refuses text with a lone UTF-16 surrogate with a 400 naming the field, and writes nothing', async () => {
    const id = newSessionId()
    const cases: [string, string, string][] = [
      [
        `/v1/sessions/${id}/events`,
        '{"events":[{"message":{"role":"user","content":"ok"}},{"message":{"role":"user","content":"a\\ud800"}}]}',
        'events[1].message.content',
      ],
      [
        `/v1/sessions/${id}/events`,
        '{"events":[{"message":{"role":"user","content":"ok"},"metadata":{"k":["\\udfff"]}}]}',
        'events[0].metadata.k[0]',
      ],
      [`/v1/sessions/${id}/turns`, '{"content":"\\ud83d"}', 'content'],
      ['/v1/chat/completions', '{"model":"echo","messages":[{"role":"user","content":"x\\ud800y"}]}', 'messages[0].content'],
    ]
    for (const [path, body, field] of cases) {
      const result = await call('POST', path, { body, headers: { 'X-Session-Id': id } })
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message.startsWith(`${field}: holds a lone UTF-16 surrogate`), result.body.error.message).toBe(
        true,
      )
    }
    expectError(await call('GET', `/v1/sessions/${id}`), 404, 'not_found')
  })

  it('takes a gzip body as its JSON, and refuses a plain one labelled gzip', async () => {
    const id = newSessionId()
    const json = JSON.stringify({ events: [user('zipped')] })
    const gzip = await new Response(new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer()
    const request = (body: BodyInit) =>
      tokenFor('alice').then((token) =>
        exports.default.fetch(
          new Request(`https://sessions.test/v1/sessions/${id}/events`, {
            method: 'POST',
            body,
            headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          }),
        ),
      )
    expect((await request(gzip)).status).toBe(201)
    const plain = await request(json)
    expect(plain.status).toBe(400)
    expect(((await plain.json()) as { error: { message: string } }).error.message).toBe(
      'body: not valid gzip (Content-Encoding says it is)',
    )
    expect((await wholeLog(id)).map((event) => event.message.content)).toEqual(['zipped'])
  })
})

describe('a stored tool call whose arguments are not a JSON object', () => {
  it('is stored as it came, and sent to the model as {"invalid_arguments": …}, in the prompt and the OpenAI view', async () => {
    const id = newSessionId()
    const tag = newTag()
    const calls = [
      { id: 'c1', name: 'get_weather', arguments: '{"city": "Par' },
      { id: 'c2', name: 'get_weather', arguments: '[1,2]' },
      { id: 'c3', name: 'get_weather', arguments: '{"city":"Rome"}' },
    ]
    await append(id, [
      user('weather?'),
      { message: { role: 'assistant', content: null, toolCalls: calls } },
      {
        message: {
          role: 'tool',
          content: null,
          toolResponses: calls.map((c) => ({ id: c.id, name: c.name, data: 'sunny' })),
        },
      },
      { message: { role: 'assistant', content: 'Sunny everywhere.' } },
    ])
    expect((await turn(id, { content: 'thanks', model: `echo#${tag}`, compaction: false })).status).toBe(200)
    const sent = (await upstreamRequests(tag))[0]!.body.messages.find((m) => m.tool_calls) as {
      tool_calls: { function: { arguments: string } }[]
    }
    const expected = ['{"invalid_arguments":"{\\"city\\": \\"Par"}', '{"invalid_arguments":"[1,2]"}', '{"city":"Rome"}']
    expect(sent.tool_calls.map((c) => c.function.arguments)).toEqual(expected)
    const view = (await call('GET', `/v1/sessions/${id}/view?format=openai`)).body.messages
    expect(view.find((m: { tool_calls?: unknown }) => m.tool_calls).tool_calls.map((c: any) => c.function.arguments)).toEqual(
      expected,
    )
    expect((await wholeLog(id))[1].message.toolCalls).toEqual(calls)
  })
})

describe('search and dry runs, as the contract says', () => {
  it('finds both words around an emoji, and the two as a phrase', async () => {
    const id = newSessionId()
    await append(id, [user('avocado🥑toast', 'u1'), user('rocket🚀ship', 'u2')])
    const found = async (q: string) =>
      (await call('GET', `/v1/sessions/${id}/search?q=${encodeURIComponent(q)}`)).body.hits.map((hit: any) => hit.event.id)
    expect(await found('avocado')).toEqual(['u1'])
    expect(await found('toast')).toEqual(['u1'])
    expect(await found('"avocado toast"')).toEqual(['u1'])
    expect(await found('ship')).toEqual(['u2'])
  })

  it('answers a dry run whose trigger does not fire with "dryRun": true', async () => {
    const id = newSessionId()
    await append(id, [user('U1'), { message: { role: 'assistant', content: 'A1' } }])
    const result = await call('POST', `/v1/sessions/${id}/compact`, { body: { trigger: { turnCount: 10 }, dryRun: true } })
    expect(result.status).toBe(200)
    expect(result.body).toMatchObject({ unchanged: true, reason: 'trigger_not_fired', dryRun: true })
  })
})
