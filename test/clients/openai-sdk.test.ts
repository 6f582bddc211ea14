import OpenAI from 'openai'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent, viewOf } from './helpers'
import { blobOf, expectStoredOnce, PDF, PDF_DATA_URL, PNG, PNG_DATA_URL } from './media'

/** The official SDK pointed at the service: its base URL, the bearer token as the API key, the session in a header. */
const client = (sessionId: string) =>
  new OpenAI({
    baseURL: inject('apiBase'),
    apiKey: inject('apiKey'),
    defaultHeaders: { 'X-Session-Id': sessionId },
    maxRetries: 0,
  })

const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: {} } },
}

describe('the openai package against the chat-completions door', () => {
  it('a plain reply: a chat.completion, and the session holds the message and the reply', async () => {
    const id = newSessionId()
    const completion = await client(id).chat.completions.create({
      model: 'echo',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
    })
    expect(completion.object).toBe('chat.completion')
    expect(completion.choices[0]!.message.content).toBe('Echo: Hello there')
    expect(completion.choices[0]!.finish_reason).toBe('stop')
    expect(completion.usage?.total_tokens).toBeGreaterThan(0)
    expect(shown(await logOf(id))).toEqual(['system:Be brief.', 'user:Hello there', 'assistant:Echo: Hello there'])
  })

  it('a streamed reply: the SDK reads the chunks into the text, with usage when asked; stored by the end', async () => {
    const id = newSessionId()
    const stream = await client(id).chat.completions.create({
      model: 'echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Tell me something' }],
    })
    let text = ''
    let finish: string | null = null
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      usage = chunk.usage ?? usage
    }
    expect(text).toBe('Echo: Tell me something')
    expect(finish).toBe('stop')
    expect(usage?.total_tokens).toBeGreaterThan(0)
    expect(shown(await logOf(id)).at(-1)).toBe('assistant:Echo: Tell me something')
  })

  it('a tool round trip, plain and streamed: the calls, then the results sent back as tool messages', async () => {
    const id = newSessionId()
    const tag = newTag()
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }]
    const asked = await client(id).chat.completions.create({ model: `agent-w1#${tag}`, tools: [weather], messages })
    const call = asked.choices[0]!.message.tool_calls![0]!
    expect(asked.choices[0]!.finish_reason).toBe('tool_calls')
    expect(call).toMatchObject({ id: 'w1', type: 'function', function: { name: 'get_weather' } })
    messages.push(asked.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '18°C, sunny' })
    const answered = await client(id).chat.completions.create({ model: `agent-w1#${tag}`, tools: [weather], messages })
    expect(answered.choices[0]!.message.content).toBe('Results: 18°C, sunny')
    expect(shown(await logOf(id))).toEqual([
      'user:Weather in Paris?',
      'assistant:calls w1',
      'tool:w1=18°C, sunny',
      'assistant:Results: 18°C, sunny',
    ])

    // Streamed: the SDK's tool-call deltas put together.
    const streamed = await client(id).chat.completions.create({
      model: `tools-_#${tag}`,
      stream: true,
      tools: [weather],
      messages: [{ role: 'user', content: 'And in Rome?' }],
    })
    const calls: { id?: string; name?: string; arguments: string }[] = []
    for await (const chunk of streamed) {
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        calls[delta.index] ??= { arguments: '' }
        const at = calls[delta.index]!
        at.id = delta.id ?? at.id
        at.name = delta.function?.name ?? at.name
        at.arguments += delta.function?.arguments ?? ''
      }
    }
    expect(calls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'get_weather', arguments: '{"n":0}' }])
    const stored = (await logOf(id)).at(-1)!.message.toolCalls as { id: string }[]
    expect(stored[0]!.id).toBe(calls[0]!.id)
  })

  it('an image and a PDF in a turn, resent with the history by the next: stored once, the model given both every time', async () => {
    const id = newSessionId()
    const tag = newTag()
    const question: OpenAI.ChatCompletionContentPart[] = [
      { type: 'text', text: 'What are these?' },
      { type: 'image_url', image_url: { url: PNG_DATA_URL } },
      { type: 'file', file: { file_data: PDF_DATA_URL, filename: 'plan.pdf' } },
    ]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: question }]
    const first = await client(id).chat.completions.create({ model: `echo#${tag}`, messages })
    expect(first.choices[0]!.message.content).toBe('Echo: What are these? [image] [file]')
    messages.push(first.choices[0]!.message, { role: 'user', content: 'And the second page?' })
    const second = await client(id).chat.completions.create({ model: `echo#${tag}`, messages })
    expect(second.choices[0]!.message.content).toBe('Echo: And the second page?')
    const log = await logOf(id)
    expect(log.map((event) => event.message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(log[0]!.message.content).toEqual([
      { type: 'text', text: 'What are these?' },
      { type: 'image', mediaType: 'image/png', blob: await blobOf(PNG), bytes: PNG.byteLength, width: 40, height: 30 },
      {
        type: 'document',
        mediaType: 'application/pdf',
        blob: await blobOf(PDF),
        bytes: PDF.byteLength,
        pages: 2,
        title: 'plan.pdf',
      },
    ])
    await expectStoredOnce(id, [PNG, PDF])
    // The model was given the question's parts as the client sent them, on both requests.
    const sent = await upstreamSent(tag)
    expect(sent).toHaveLength(2)
    for (const { body } of sent) expect(body.messages[0]).toEqual({ role: 'user', content: question })
  })

  it('a conversation resending its whole history each turn: each message stored once, the model sent it once', async () => {
    const id = newSessionId()
    const tag = newTag()
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are terse.' }]
    for (const question of ['First?', 'Second?', 'Third?', 'Fourth?', 'Fifth?']) {
      messages.push({ role: 'user', content: question })
      const completion = await client(id).chat.completions.create({ model: `echo#${tag}`, messages })
      messages.push(completion.choices[0]!.message)
    }
    expect(shown(await logOf(id))).toEqual([
      'system:You are terse.',
      ...['First?', 'Second?', 'Third?', 'Fourth?', 'Fifth?'].flatMap((q) => [`user:${q}`, `assistant:Echo: ${q}`]),
    ])
    const last = (await upstreamSent(tag)).at(-1)!.body.messages
    expect(last.map((m) => m.content)).toEqual([
      'You are terse.',
      ...['First?', 'Second?', 'Third?', 'Fourth?'].flatMap((q) => [q, `Echo: ${q}`]),
      'Fifth?',
    ])
  })

  it('a chat UI that edits a question and regenerates a reply, resending its history: both work, nothing is lost', async () => {
    const id = newSessionId()
    const openai = client(id)
    type Message = OpenAI.ChatCompletionMessageParam
    const ask = async (messages: Message[], headers?: Record<string, string>) => {
      const { data, response } = await openai.chat.completions.create({ model: 'echo', messages }, { headers }).withResponse()
      return { reply: data.choices[0]!.message.content!, rewound: response.headers.get('x-rewound') }
    }
    const history: Message[] = [{ role: 'user', content: 'One?' }]
    history.push({ role: 'assistant', content: (await ask(history)).reply })
    history.push({ role: 'user', content: 'Two?' })
    history.push({ role: 'assistant', content: (await ask(history)).reply })
    // The person edits "Two?": the UI drops what followed it and sends the edited history.
    history.splice(2, 2, { role: 'user', content: 'Two, really?' })
    const edited = await ask(history)
    expect(edited).toEqual({ reply: 'Echo: Two, really?', rewound: '2' })
    history.push({ role: 'assistant', content: edited.reply })
    // Then regenerates that reply: the same history again, asking for a new answer.
    const regenerated = await ask(history.slice(0, -1), { 'X-Regenerate': 'true' })
    expect(regenerated.reply).toBe('Echo: Two, really?')
    expect(await viewOf(id)).toEqual(['user:One?', 'assistant:Echo: One?', 'user:Two, really?', 'assistant:Echo: Two, really?'])
    // Every message is still in the log: the first "Two?" turn and the first answer to the edit, abandoned.
    expect(shown(await logOf(id))).toEqual([
      'user:One?',
      'assistant:Echo: One?',
      'user:Two?',
      'assistant:Echo: Two?',
      'user:Two, really?',
      'assistant:Echo: Two, really?',
      'assistant:Echo: Two, really?',
    ])
  })

  it('errors come back as the SDK’s APIError with the contract’s status and code; models are listed', async () => {
    const id = newSessionId()
    await client(id).chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'One' }] })
    // The strict reconciliation, asked for: an edited history is a 409.
    const edited = client(id).chat.completions.create(
      {
        model: 'echo',
        messages: [
          { role: 'user', content: 'One' },
          { role: 'assistant', content: 'not what was said' },
          { role: 'user', content: 'Two' },
        ],
      },
      { headers: { 'X-On-Diverge': 'reject' } },
    )
    await expect(edited).rejects.toMatchObject({ status: 409, error: { code: 'history_diverged' } })
    await expect(
      client(id).chat.completions.create({ model: 'echo', n: 2, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 400,
    })
    const models = await client(id).models.list()
    expect(models.data.map((m) => m.id)).toEqual(['echo'])
  })
})
