/** A session holding every kind of event, for the export and import tests. */
import { append, assistant, call, numberedTurns, user } from '../helpers'

/** A session with every kind of event: turns, a tool call and its result, a pin, compactions (one with a summary, undone), a rewind. */
export async function everyKind(prefix = 'export') {
  const id = await numberedTurns(3, prefix) // S1 u1 a1 u2 a2 u3 a3
  await call('POST', `/v1/sessions/${id}/pins`, { body: { pin: ['a1'] } })
  await call('POST', `/v1/sessions/${id}/compact`, { body: { strategy: { window: { lastTurns: 1 } } } })
  await append(id, [
    user('weather?', 'u4'),
    { id: 'c4', message: { role: 'assistant', content: null, toolCalls: [{ id: 'w1', name: 'get_weather', arguments: '{}' }] } },
    { id: 't4', message: { role: 'tool', content: null, toolResponses: [{ id: 'w1', name: 'get_weather', data: 'sunny' }] } },
    assistant('It is sunny.', 'a4'),
    user('abandoned question', 'u5'),
  ])
  await call('POST', `/v1/sessions/${id}/rewind`, { body: { to: 'a4', position: 'at' } })
  await append(id, [user('the question after the branch', 'u6'), assistant('an answer after it', 'a6')])
  // A pass with a summary (its summary events follow its boundary), then its undo.
  const summarized = await call('POST', `/v1/sessions/${id}/compact`, {
    body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: 'echo' } } },
  })
  if (!summarized.body.boundary) throw new Error(`no pass: ${summarized.text}`)
  const undone = await call('POST', `/v1/sessions/${id}/compactions/${summarized.body.boundary.id}/undo`, { body: {} })
  if (undone.status !== 200) throw new Error(`no undo: ${undone.text}`)
  await append(id, [user('the question after the branch, again', 'u7')])
  return id
}
