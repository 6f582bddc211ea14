import { describe, expect, it } from 'vitest'
import { call, newSessionId, newTag, upstreamRequests, wholeLog } from '../helpers'
import { a, send, shown, text, u } from '../support/messages-door'

/** Each door as its clients speak it, on one session named by X-Session-Id. */
const messages = (session: string, body: Record<string, unknown>) => send(session, body)
const responses = (session: string, body: Record<string, unknown>) =>
  call('POST', '/v1/responses', { body, headers: { 'X-Session-Id': session } })
const chat = (session: string, body: Record<string, unknown>) =>
  call('POST', '/v1/chat/completions', { body, headers: { 'X-Session-Id': session } })
const item = (role: string, value: string) => ({
  type: 'message',
  role,
  content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: value }],
})

describe('one session through every door', () => {
  it('a conversation started on the Messages door goes on through Responses and chat completions, each message stored once', async () => {
    const id = newSessionId('doors')
    const tag = newTag()
    const model = `echo#${tag}`
    // Claude Code's way: Anthropic's shape, the system prompt apart.
    const first = await messages(id, { model, system: 'Be brief.', messages: [u('One')] })
    expect(first.body.content[0].text).toBe('Echo: One')
    // Codex's way: the history as Responses items, resent whole.
    const history = [item('developer', 'Be brief.'), item('user', 'One'), item('assistant', 'Echo: One')]
    const second = await responses(id, { model, input: [...history, item('user', 'Two')] })
    expect(second.body.output[0].content[0].text).toBe('Echo: Two')
    // A chat client's way: the conversation in OpenAI's shape, as the session's view shows it.
    const view = await call('GET', `/v1/sessions/${id}/view?format=openai`)
    expect(view.body.messages.map((m: any) => m.content)).toEqual(['Be brief.', 'One', 'Echo: One', 'Two', 'Echo: Two'])
    const third = await chat(id, { model, messages: [...view.body.messages, { role: 'user', content: 'Three' }] })
    expect(third.body.choices[0].message.content).toBe('Echo: Three')
    // And back to the Messages door with the whole history as an Anthropic client holds it.
    const back = [u('One'), a([text('Echo: One')]), u('Two'), a('Echo: Two'), u('Three'), a('Echo: Three'), u('Four')]
    const fourth = await messages(id, { model, system: 'Be brief.', messages: back })
    expect(fourth.body.content[0].text).toBe('Echo: Four')
    expect(shown(await wholeLog(id))).toEqual([
      'system:Be brief.',
      ...['One', 'Two', 'Three', 'Four'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]),
    ])
    // Every door's model call was shown the one coherent history.
    const sent = await upstreamRequests(tag)
    expect(sent.at(-1)!.body.messages.map((m) => m.content)).toEqual([
      'Be brief.',
      'One',
      'Echo: One',
      'Two',
      'Echo: Two',
      'Three',
      'Echo: Three',
      'Four',
    ])
  })

  it('an assistant message sent with its tool calls alone is stored with content null, seeded through any door', async () => {
    const model = `echo#${newTag()}`
    const seeds: Record<string, (id: string) => ReturnType<typeof chat>> = {
      chat: (id) =>
        chat(id, {
          model,
          messages: [
            { role: 'user', content: 'Weather?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'w1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'w1', content: 'sunny' },
            { role: 'assistant', content: 'Sunny.' },
            { role: 'user', content: 'Thanks' },
          ],
        }),
      messages: (id) =>
        messages(id, {
          model,
          messages: [
            u('Weather?'),
            a([{ type: 'tool_use', id: 'w1', name: 'get_weather', input: {} }]),
            u([{ type: 'tool_result', tool_use_id: 'w1', content: 'sunny' }]),
            a('Sunny.'),
            u('Thanks'),
          ],
        }),
      responses: (id) =>
        responses(id, {
          model,
          input: [
            item('user', 'Weather?'),
            { type: 'function_call', call_id: 'w1', name: 'get_weather', arguments: '{}' },
            { type: 'function_call_output', call_id: 'w1', output: 'sunny' },
            item('assistant', 'Sunny.'),
            item('user', 'Thanks'),
          ],
        }),
    }
    for (const [door, seed] of Object.entries(seeds)) {
      const id = newSessionId('doors')
      const result = await seed(id)
      expect(result.status, `${door}: ${result.text}`).toBe(200)
      const replies = (await wholeLog(id)).filter((e) => e.message.role === 'assistant')
      expect(
        replies.map((e) => e.message.content),
        door,
      ).toEqual([null, 'Sunny.', 'Echo: Thanks'])
    }
  })

  it('a tool call asked on the Responses door is answered on the chat door and read on the Messages door', async () => {
    const id = newSessionId('doors')
    const tag = newTag()
    const model = `agent-w1#${tag}`
    const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }
    const asked = await responses(id, { model, tools: [tool], input: [item('user', 'Weather?')] })
    expect(asked.body.output[0]).toMatchObject({ type: 'function_call', call_id: 'w1' })
    const chatTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }
    const answered = await chat(id, {
      model,
      tools: [chatTool],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'w1', type: 'function', function: { name: 'get_weather', arguments: '{"n":0}' } }],
        },
        { role: 'tool', tool_call_id: 'w1', content: 'sunny' },
      ],
    })
    expect(answered.status, answered.text).toBe(200)
    expect(answered.body.choices[0].message.content).toBe('Results: sunny')
    const anthropic = [
      u('Weather?'),
      a([{ type: 'tool_use', id: 'w1', name: 'get_weather', input: { n: 0 } }]),
      u([{ type: 'tool_result', tool_use_id: 'w1', content: 'sunny' }]),
      a('Results: sunny'),
      u('Thanks'),
    ]
    const last = await messages(id, { model: `echo#${tag}`, messages: anthropic })
    expect(last.body.content[0].text).toBe('Echo: Thanks')
    expect(shown(await wholeLog(id))).toEqual([
      'user:Weather?',
      'assistant:calls w1({"n":0})',
      'tool:w1=sunny',
      'assistant:Results: sunny',
      'user:Thanks',
      'assistant:Echo: Thanks',
    ])
  })
})
