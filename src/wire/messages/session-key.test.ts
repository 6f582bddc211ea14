import { describe, expect, it } from 'vitest'
import { messagesSessionKey, sessionOfUserId } from './session-key'

describe('messagesSessionKey', () => {
  it('takes X-Session-Id, then x-claude-code-session-id, then metadata.user_id', () => {
    expect(messagesSessionKey({ sessionId: 'a', claudeCodeSessionId: 'b' }, '{"session_id":"c"}')).toEqual({ sessionId: 'a' })
    expect(messagesSessionKey({ claudeCodeSessionId: 'b' }, '{"session_id":"c"}')).toEqual({ sessionId: 'b' })
    expect(messagesSessionKey({}, '{"session_id":"c"}')).toEqual({ sessionId: 'c' })
    expect(messagesSessionKey({}, undefined)).toBeNull()
  })

  it('puts a subagent in a session of its own under the main one', () => {
    expect(messagesSessionKey({ claudeCodeSessionId: 's', agentId: 'a1' }, null)).toEqual({
      sessionId: 's:a1',
      parentSessionId: 's',
    })
  })
})

describe('sessionOfUserId', () => {
  it('reads the JSON form and the older user_…_session_<id> form; anything else names none', () => {
    expect(sessionOfUserId('{"device_id":"d","account_uuid":"","session_id":"0b9e-11"}')).toBe('0b9e-11')
    expect(sessionOfUserId('user_9f8e_account__session_7c1d-22')).toBe('7c1d-22')
    expect(sessionOfUserId('{"session_id":""}')).toBeUndefined()
    expect(sessionOfUserId('{not json')).toBeUndefined()
    expect(sessionOfUserId('someone@example.com')).toBeUndefined()
  })
})
