import { describe, expect, it } from 'vitest'
import { SIZE_LIMITS } from '../../src/contract/limits'
import { call, expectError, newSessionId, user } from '../helpers'

describe('the error contract', () => {
  it('every response carries X-Request-Id, echoing a sane one the client sent', async () => {
    const made = await call('GET', '/v1/sessions')
    expect(made.headers.get('X-Request-Id')).toMatch(/^[\w-]{8,}$/)
    const echoed = await call('GET', `/v1/sessions/${newSessionId()}`, { headers: { 'X-Request-Id': 'client-req-42' } })
    expect(echoed.headers.get('X-Request-Id')).toBe('client-req-42')
    expectError(echoed, 404, 'not_found')
    const unauthorized = await call('GET', '/v1/sessions', { user: null, headers: { 'X-Request-Id': 'abc-1' } })
    expect(unauthorized.headers.get('X-Request-Id')).toBe('abc-1')
  })

  it('404 not_found for unknown routes and methods', async () => {
    expectError(await call('GET', '/nope', { user: null }), 404, 'not_found')
    expectError(await call('GET', '/v1/nope'), 404, 'not_found')
    expectError(await call('PUT', `/v1/sessions/${newSessionId()}`, { body: {} }), 404, 'not_found')
  })

  it('400 for malformed or truncated JSON', async () => {
    for (const text of ['{"events": [', '{events: []}', 'null', '[]', '"text"']) {
      const result = await call('POST', `/v1/sessions/${newSessionId()}/events`, { body: text })
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toMatch(/^body/) // not valid JSON, or not an object
    }
    const truncated = await call('POST', `/v1/sessions/${newSessionId()}/events`, { body: '{"events": [' })
    expect(truncated.body.error.message).toBe('body: not valid JSON')
  })

  it('415 for a body that is not declared JSON; a request with no body needs no content type', async () => {
    const id = newSessionId()
    const text = await call('POST', `/v1/sessions/${id}/events`, {
      body: JSON.stringify({ events: [user('x')] }),
      headers: { 'Content-Type': 'text/plain' },
    })
    expectError(text, 415, 'unsupported_media_type')
    const form = await call('POST', '/v1/sessions', {
      body: 'id=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    })
    expectError(form, 415, 'unsupported_media_type')
    expect((await call('POST', '/v1/sessions')).status).toBe(201)
    expect(
      (await call('POST', '/v1/sessions', { body: '{}', headers: { 'Content-Type': 'application/json; charset=utf-8' } })).status,
    ).toBe(201)
  })

  it('413 for a body over the limit', async () => {
    const huge = JSON.stringify({ events: [user('x'.repeat(SIZE_LIMITS.requestBytes))] })
    const result = await call('POST', `/v1/sessions/${newSessionId()}/events`, { body: huge })
    expectError(result, 413, 'payload_too_large')
  })

  it('500 internal for an unexpected failure, with the request id and never a stack trace', async () => {
    const { app } = await import('../../src/http/app')
    const { env } = await import('cloudflare:workers')
    const { tokenFor } = await import('../helpers')
    const broken = { ...env, SESSIONS: undefined as unknown as Env['SESSIONS'] }
    const response = await app.request(
      '/v1/sessions/x',
      { headers: { Authorization: `Bearer ${await tokenFor('alice')}`, 'X-Request-Id': 'req-500' } },
      broken,
    )
    expect(response.status).toBe(500)
    const text = await response.text()
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal', message: 'internal error (request req-500)' } })
    expect(text).not.toMatch(/at |TypeError|\.ts:/)
  })

  it('responses are JSON with charset, errors included', async () => {
    for (const result of [await call('GET', '/v1/sessions'), await call('GET', `/v1/sessions/${newSessionId()}`)]) {
      expect(result.headers.get('Content-Type')).toBe('application/json; charset=utf-8')
    }
  })
})

describe('GET /v1/openapi.json', () => {
  it('documents every route with the schemas that validate requests', async () => {
    const { body } = await call('GET', '/v1/openapi.json', { user: null })
    expect(body.openapi).toBe('3.1.0')
    expect(Object.keys(body.paths).sort()).toEqual([
      '/v1/chat/completions',
      '/v1/conversations',
      '/v1/conversations/{id}',
      '/v1/conversations/{id}/items',
      '/v1/conversations/{id}/items/{itemId}',
      '/v1/export',
      '/v1/memories',
      '/v1/memories/rename',
      '/v1/memories/{path}',
      '/v1/memories/{path}/versions',
      '/v1/messages',
      '/v1/messages/count_tokens',
      '/v1/models',
      '/v1/responses',
      '/v1/responses/compact',
      '/v1/responses/{id}',
      '/v1/responses/{id}/input_items',
      '/v1/search',
      '/v1/sessions',
      '/v1/sessions/{id}',
      '/v1/sessions/{id}/blobs/{blob}',
      '/v1/sessions/{id}/branches',
      '/v1/sessions/{id}/compact',
      '/v1/sessions/{id}/compactions',
      '/v1/sessions/{id}/compactions/{boundaryId}/undo',
      '/v1/sessions/{id}/context',
      '/v1/sessions/{id}/events',
      '/v1/sessions/{id}/export',
      '/v1/sessions/{id}/fork',
      '/v1/sessions/{id}/import',
      '/v1/sessions/{id}/pins',
      '/v1/sessions/{id}/rewind',
      '/v1/sessions/{id}/search',
      '/v1/sessions/{id}/stream',
      '/v1/sessions/{id}/turns',
      '/v1/sessions/{id}/view',
      '/v1/usage',
      '/v1/webhooks',
      '/v1/webhooks/{id}',
      '/v1/webhooks/{id}/deliveries',
      '/v1/webhooks/{id}/test',
    ])
    expect(Object.keys(body.paths['/v1/sessions/{id}']).sort()).toEqual(['delete', 'get', 'patch'])
    // A memory file's path holds slashes: Hono's pattern for it is not in the document.
    expect(Object.keys(body.paths['/v1/memories/{path}']).sort()).toEqual(['delete', 'get', 'patch', 'put'])
    expect(Object.keys(body.paths['/v1/memories/{path}'].put.responses)).toEqual(expect.arrayContaining(['200', '412', '413']))
    expect(body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    for (const name of [
      'AppendRequest',
      'Message',
      'Trigger',
      'Window',
      'Policy',
      'Session',
      'Event',
      'CompactionResult',
      'Error',
    ]) {
      expect(body.components.schemas[name], name).toBeDefined()
    }
    // The tool loop: what a turn takes and answers.
    const turn = body.components.schemas.TurnRequest
    expect(Object.keys(turn.properties)).toEqual(
      expect.arrayContaining(['content', 'toolResults', 'tools', 'toolChoice', 'options']),
    )
    expect(body.components.schemas.ToolResult.properties).toMatchObject({ id: {}, data: {}, error: {} })
    expect(body.components.schemas.TurnResponse.properties.status.enum).toEqual(['completed', 'requires_action'])
    expect(Object.keys(body.paths['/v1/sessions/{id}/turns'].post.responses)).toEqual(
      expect.arrayContaining(['200', '404', '409']),
    )
    // The chat-completions door.
    expect(body.components.schemas.ChatCompletionRequest.properties).toMatchObject({ messages: {}, stream: {}, tools: {} })
    expect(body.paths['/v1/chat/completions'].post.parameters.map((p: { name: string }) => p.name)).toEqual([
      'x-session-id',
      'x-memory',
      'x-on-diverge',
      'x-regenerate',
      'idempotency-key',
      'x-stainless-retry-count',
      // Read by every door alike (with `all` for every session): declared with the doors' headers.
      'x-recall',
    ])
    const eventInput = body.components.schemas.EventInput
    expect(eventInput.additionalProperties).toBe(false)
    expect(eventInput.required).toEqual(['message'])
  })
})
