import { describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../src/core/media/base64'
import { png } from '../../src/core/media/fixtures'
import { append, assistant, call, expectError, newSessionId, newTag, system, upstreamRequests, user } from '../helpers'

const sessionOf = async (id: string) => (await call('GET', `/v1/sessions/${id}`)).body

describe('session titles', () => {
  it('a client gives one on create or patch; null takes it back to the first user message’s first line', async () => {
    const id = newSessionId()
    const created = await call('POST', '/v1/sessions', { body: { id, title: '  Trip planning  ' } })
    expect(created.body).toMatchObject({ title: 'Trip planning', titleSource: 'client' })
    await append(id, [user('Where should we go in May?\nSomewhere warm.')])
    expect(await sessionOf(id)).toMatchObject({ title: 'Trip planning', titleSource: 'client' })
    const patched = await call('PATCH', `/v1/sessions/${id}`, { body: { title: 'Lisbon in May' } })
    expect(patched.body).toMatchObject({ title: 'Lisbon in May', titleSource: 'client' })
    const back = await call('PATCH', `/v1/sessions/${id}`, { body: { title: null } })
    expect(back.body).toMatchObject({ title: 'Where should we go in May?', titleSource: 'first_message' })
  })

  it('without one: the first user message’s first line that is not blank, cut at 80 characters', async () => {
    const id = newSessionId()
    await append(id, [system('Be brief.'), assistant('Hello! How can I help?')])
    expect(await sessionOf(id)).toMatchObject({ title: null, titleSource: null })
    const line = `${'Why does the login page redirect twice '.repeat(3)}?`
    await append(id, [user(`\n  \n${line}\nsecond line`), user('A later question')])
    expect(await sessionOf(id)).toMatchObject({ title: line.slice(0, 80), titleSource: 'first_message' })
    expect((await sessionOf(id)).title).toHaveLength(80)
  })

  it('a first user message with an image is titled by its text; one with no text leaves it to the next', async () => {
    const id = newSessionId()
    const image = { type: 'image', mediaType: 'image/png', data: encodeBase64(png(1, 1)) }
    await append(id, [{ message: { role: 'user', content: [image] } }])
    expect(await sessionOf(id)).toMatchObject({ title: null, titleSource: null })
    await append(id, [{ message: { role: 'user', content: [{ type: 'text', text: 'What is in this chart?' }, image] } }])
    expect(await sessionOf(id)).toMatchObject({ title: 'What is in this chart?', titleSource: 'first_message' })
  })

  it('the summary model writes one in the first summarizing pass’s own call, no extra call; never over a client’s', async () => {
    const tag = newTag()
    const id = newSessionId()
    await append(id, [
      user('We need to plan the Lisbon trip', 'u1'),
      assistant('Sure.'),
      user('Book the flights'),
      assistant('Done.'),
    ])
    const summarize = { strategy: { window: { lastTurns: 1 }, summarizer: { model: `titled-Planning-the-Lisbon-trip#${tag}` } } }
    // A dry run asks for nothing.
    await call('POST', `/v1/sessions/${id}/compact`, { body: { ...summarize, dryRun: true } })
    expect(await upstreamRequests(tag)).toHaveLength(0)
    const pass = await call('POST', `/v1/sessions/${id}/compact`, { body: summarize })
    expect(pass.status, pass.text).toBe(200)
    expect(await sessionOf(id)).toMatchObject({ title: 'Planning the Lisbon trip', titleSource: 'model' })
    // One model call for the pass: the summary and the title came in it; the summary holds no title line.
    const requests = await upstreamRequests(tag)
    expect(requests).toHaveLength(1)
    expect(requests[0]!.body.messages.at(-1)!.content).toContain('"Title: "')
    const summary = pass.body.summary.at(-1).message.content as string
    expect(summary).not.toMatch(/Title: Planning/)
    // The next pass does not ask again.
    await append(id, [user('And the hotel?'), assistant('Booked.'), user('Thanks'), assistant('Welcome.')])
    await call('POST', `/v1/sessions/${id}/compact`, { body: summarize })
    const asked = await upstreamRequests(tag)
    expect(asked).toHaveLength(2)
    expect(asked[1]!.body.messages.at(-1)!.content).not.toContain('"Title: "')

    const client = newSessionId()
    await call('POST', '/v1/sessions', { body: { id: client, title: 'Mine' } })
    await append(client, [user('one'), assistant('a'), user('two'), assistant('b')])
    const other = newTag()
    await call('POST', `/v1/sessions/${client}/compact`, {
      body: { strategy: { window: { lastTurns: 1 }, summarizer: { model: `titled-Not-this#${other}` } } },
    })
    expect((await upstreamRequests(other))[0]!.body.messages.at(-1)!.content).not.toContain('"Title: "')
    expect(await sessionOf(client)).toMatchObject({ title: 'Mine', titleSource: 'client' })
  })

  it('400s a blank title or one over 200 characters, naming it', async () => {
    for (const title of ['   ', 'x'.repeat(201), 42]) {
      const result = await call('POST', '/v1/sessions', { body: { id: newSessionId(), title } })
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message).toContain('title')
    }
    const id = newSessionId()
    await call('POST', '/v1/sessions', { body: { id } })
    expectError(await call('PATCH', `/v1/sessions/${id}`, { body: { title: 'y'.repeat(201) } }), 400, 'invalid_request')
  })
})
