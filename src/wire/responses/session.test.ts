import { describe, expect, it } from 'vitest'
import { ResponsesRequestSchema } from '../../contract/schemas'
import { responseId } from './answer'
import { IMPLICIT_TTL_SECONDS, implicitTtlOf, responsesPlace } from './session'

const request = (body: Record<string, unknown>) => ResponsesRequestSchema.parse({ model: 'm', input: 'q', ...body })
const newId = () => 'conv_new'

describe('responsesPlace', () => {
  it('takes conversation, then previous_response_id’s session, then X-Session-Id, then session-id', () => {
    const headers = { 'x-session-id': 'h1', 'session-id': 'h2' }
    expect(responsesPlace(request({ conversation: { id: 'c1' } }), headers, newId)).toEqual({
      sessionId: 'c1',
      mustExist: true,
      implicit: false,
    })
    const previous = responseId('evt_1', 's9')
    expect(responsesPlace(request({ previous_response_id: previous }), headers, newId)).toEqual({
      sessionId: 's9',
      mustExist: false,
      implicit: false,
      after: { replyId: 'evt_1', responseId: previous },
    })
    expect(responsesPlace(request({}), headers, newId).sessionId).toBe('h1')
    expect(responsesPlace(request({ store: false }), { 'session-id': 'h2' }, newId).sessionId).toBe('h2')
  })

  it('with none: store false is unstored, anything else gets a session of its own', () => {
    expect(responsesPlace(request({ store: false }), {}, newId)).toEqual({ sessionId: null, mustExist: false, implicit: false })
    expect(responsesPlace(request({}), {}, newId)).toEqual({ sessionId: 'conv_new', mustExist: false, implicit: true })
    expect(responsesPlace(request({ store: true }), {}, newId).implicit).toBe(true)
  })

  it('refuses conversation with previous_response_id, and a response id naming no session', () => {
    const both = request({ conversation: 'c1', previous_response_id: responseId('evt_1', 'c1') })
    expect(() => responsesPlace(both, {}, newId)).toThrow('give conversation or previous_response_id, not both')
    for (const id of ['resp_nothing', 'resp_%%%.evt_1', responseId('evt_1', null)])
      expect(() => responsesPlace(request({ previous_response_id: id }), {}, newId), id).toThrow(`response "${id}" not found`)
  })
})

describe('implicitTtlOf', () => {
  it('is 30 days unless configured; 0 is never; anything else names the variable', () => {
    expect(implicitTtlOf(undefined)).toBe(IMPLICIT_TTL_SECONDS)
    expect(IMPLICIT_TTL_SECONDS).toBe(2_592_000)
    expect(implicitTtlOf(' 0 ')).toBe(0)
    expect(implicitTtlOf('3600')).toBe(3600)
    expect(() => implicitTtlOf('1h')).toThrow('RESPONSES_IMPLICIT_TTL_SECONDS')
  })
})
