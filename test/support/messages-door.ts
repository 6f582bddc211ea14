/** What the Messages door's HTTP tests share: a request as an Anthropic client sends it, and readers of its answers. */
import { expect } from 'vitest'
import { type Call, call } from '../helpers'

/** A Messages request as an Anthropic client sends it: the version header, the session in `X-Session-Id` (unless `session` is null). */
export const send = (session: string | null, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/messages', {
    body: { max_tokens: 256, ...body },
    headers: { 'anthropic-version': '2023-06-01', ...(session === null ? {} : { 'X-Session-Id': session }), ...headers },
  })
export const u = (content: unknown) => ({ role: 'user', content })
export const a = (content: unknown) => ({ role: 'assistant', content })
export const text = (value: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: value, ...extra })
export const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: {} },
}
export const shown = (log: any[]) =>
  log
    .filter((e) => e.type === 'MESSAGE')
    .map(({ message: m, metadata }) => {
      if (m.toolCalls) return `${m.role}:calls ${m.toolCalls.map((c: any) => `${c.id}(${c.arguments})`).join(',')}`
      if (m.toolResponses) return `${m.role}:${m.toolResponses.map((r: any) => `${r.id}=${r.data}`).join(',')}`
      return `${m.role}${metadata.inline ? '(inline)' : ''}:${m.content ?? ''}`
    })

/** An Anthropic error answer: its status, `{"type": "error", "error": {"type", "message"}}` and nothing else. */
export function expectAnthropicError(result: Call, status: number, type: string, message?: RegExp) {
  expect(result.status, result.text).toBe(status)
  expect(Object.keys(result.body).sort()).toEqual(['error', 'type'])
  expect(result.body.type).toBe('error')
  expect(result.body.error.type).toBe(type)
  if (message) expect(result.body.error.message).toMatch(message)
}
