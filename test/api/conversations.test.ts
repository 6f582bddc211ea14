import { describe, expect, it } from 'vitest'
import { call, wholeLog } from '../helpers'

const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] })
const texts = (items: any[]) =>
  items.map((item) => {
    if (item.type === 'message') return `${item.role}:${item.content.map((part: any) => part.text).join('')}`
    if (item.type === 'function_call') return `call ${item.call_id} ${item.name}`
    return `${item.type} ${item.call_id}=${item.output}`
  })

/** An error in OpenAI's shape, with the contract's code. */
function expectOpenAIError(result: { status: number; body: any; text: string }, status: number, code: string) {
  expect(result.status, result.text).toBe(status)
  expect(Object.keys(result.body.error).sort()).toEqual(['code', 'message', 'param', 'type'])
  expect(result.body.error.code).toBe(code)
}

const newConversation = async (items: unknown[] = [], metadata: Record<string, string> = {}) => {
  const created = await call('POST', '/v1/conversations', { body: { items, metadata } })
  expect(created.status, created.text).toBe(200)
  return created.body.id as string
}

describe('the Conversations API', () => {
  it('creates a conversation holding the items given, stored as the session’s log, without a model call', async () => {
    const created = await call('POST', '/v1/conversations', {
      body: {
        metadata: { topic: 'weather' },
        items: [
          { type: 'message', role: 'developer', content: 'Be brief.' },
          user('Weather?'),
          { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.' }] },
        ],
      },
    })
    expect(created.status, created.text).toBe(200)
    expect(created.body).toEqual({
      id: expect.stringMatching(/^conv_[0-9a-f]{32}$/),
      object: 'conversation',
      created_at: expect.any(Number),
      metadata: { topic: 'weather' },
    })
    const id = created.body.id
    const log = await wholeLog(id)
    expect(log.map((event) => [event.message.role, event.metadata.inline ?? false])).toEqual([
      ['system', true],
      ['user', false],
      ['assistant', false],
      ['tool', false],
      ['assistant', false],
    ])
    const items = await call('GET', `/v1/conversations/${id}/items?order=asc`)
    expect(texts(items.body.data)).toEqual([
      'system:Be brief.',
      'user:Weather?',
      'call c1 get_weather',
      'function_call_output c1=sunny',
      'assistant:Sunny.',
    ])
    expect((await call('GET', `/v1/conversations/${id}`)).body).toEqual(created.body)
  })

  it('appends items and lists them in pages, newest first by default, after an item', async () => {
    const id = await newConversation([user('one')])
    const added = await call('POST', `/v1/conversations/${id}/items`, {
      body: { items: [user('two'), user('three'), user('four')] },
    })
    expect(added.status, added.text).toBe(200)
    expect(texts(added.body.data)).toEqual(['user:two', 'user:three', 'user:four'])
    expect(added.body).toMatchObject({ object: 'list', first_id: added.body.data[0].id, last_id: added.body.data[2].id })
    const first = await call('GET', `/v1/conversations/${id}/items?limit=2`)
    expect(texts(first.body.data)).toEqual(['user:four', 'user:three'])
    expect(first.body.has_more).toBe(true)
    const next = await call('GET', `/v1/conversations/${id}/items?limit=2&after=${first.body.last_id}`)
    expect(texts(next.body.data)).toEqual(['user:two', 'user:one'])
    expect(next.body.has_more).toBe(false)
    const asc = await call('GET', `/v1/conversations/${id}/items?order=asc&limit=3&after=${next.body.last_id}`)
    expect(texts(asc.body.data)).toEqual(['user:two', 'user:three', 'user:four'])
    const one = await call('GET', `/v1/conversations/${id}/items/${asc.body.data[1].id}`)
    expect(texts([one.body])).toEqual(['user:three'])
    expectOpenAIError(await call('GET', `/v1/conversations/${id}/items/msg_evt_none`), 404, 'not_found')
    expectOpenAIError(await call('GET', `/v1/conversations/${id}/items?after=msg_evt_none`), 400, 'invalid_request')
  })

  it('a Responses request with the conversation goes on in it; its reply is listed', async () => {
    const id = await newConversation([user('Hello')])
    const answered = await call('POST', '/v1/responses', {
      body: { model: 'echo', conversation: { id }, input: [user('Again')] },
    })
    expect(answered.status, answered.text).toBe(200)
    const items = await call('GET', `/v1/conversations/${id}/items?order=asc`)
    expect(texts(items.body.data)).toEqual(['user:Hello', 'user:Again', 'assistant:Echo: Again'])
    expect(items.body.data[2].id).toBe(answered.body.output[0].id)
  })

  it('deleting the newest item is a rewind to before it; another item is refused', async () => {
    const id = await newConversation([user('keep'), user('drop')])
    const listed = await call('GET', `/v1/conversations/${id}/items`)
    const [newest, older] = listed.body.data
    expectOpenAIError(await call('DELETE', `/v1/conversations/${id}/items/${older.id}`), 400, 'unsupported')
    const deleted = await call('DELETE', `/v1/conversations/${id}/items/${newest.id}`)
    expect(deleted.status, deleted.text).toBe(200)
    expect(deleted.body).toMatchObject({ id, object: 'conversation' })
    expect(texts((await call('GET', `/v1/conversations/${id}/items`)).body.data)).toEqual(['user:keep'])
    // Nothing is lost: the log still holds it, behind a REWIND; but it starts no page of the lineage.
    expect((await wholeLog(id)).map((event) => event.type)).toEqual(['MESSAGE', 'MESSAGE', 'REWIND'])
    expectOpenAIError(await call('GET', `/v1/conversations/${id}/items?after=${newest.id}`), 400, 'invalid_request')
  })

  it('updates metadata, deletes; an unknown conversation is a 404, a reference item a 400, in OpenAI’s shape', async () => {
    const id = await newConversation([], { a: '1' })
    const updated = await call('POST', `/v1/conversations/${id}`, { body: { metadata: { a: '2' } } })
    expect(updated.body.metadata).toEqual({ a: '2' })
    expect((await call('DELETE', `/v1/conversations/${id}`)).body).toEqual({ id, object: 'conversation.deleted', deleted: true })
    expectOpenAIError(await call('GET', `/v1/conversations/${id}`), 404, 'not_found')
    expectOpenAIError(await call('POST', `/v1/conversations/${id}/items`, { body: { items: [user('x')] } }), 404, 'not_found')
    const reference = await call('POST', '/v1/conversations', { body: { items: [{ type: 'item_reference', id: 'msg_x' }] } })
    expectOpenAIError(reference, 400, 'unsupported')
    expect(reference.body.error.param).toBe('items[0].type')
    expectOpenAIError(await call('GET', '/v1/conversations/conv_nope/items?order=sideways'), 400, 'invalid_request')
    const capsule = await call('POST', '/v1/conversations', { body: { items: [{ type: 'compaction', encrypted_content: 'x' }] } })
    expectOpenAIError(capsule, 400, 'unsupported')
    // A tool output of parts that are no parts (the fuzz found [null]) is an invalid request naming the part.
    const output = await call('POST', '/v1/conversations', {
      body: { items: [{ type: 'function_call_output', call_id: 'w1', output: [null] }] },
    })
    expectOpenAIError(output, 400, 'invalid_request')
    expect(output.body.error.param).toBe('items[0].output[0]')
  })
})
