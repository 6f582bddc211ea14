import { describe, expect, it } from 'vitest'
import { call, expectError, newSessionId, newTag, parseSSE, turn, upstreamRequests } from '../helpers'

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  },
}

describe('tools and options on /turns', () => {
  it('reach the model in OpenAI names, with maxTokens replacing CHAT_MAX_TOKENS for the call and its budget', async () => {
    const tag = newTag()
    const result = await turn(newSessionId(), {
      content: 'Weather in Paris?',
      model: `echo#${tag}`,
      tools: [weather],
      toolChoice: { type: 'function', function: { name: 'get_weather' } },
      parallelToolCalls: false,
      options: {
        temperature: 0.2,
        topP: 0.9,
        maxTokens: 64,
        stop: ['\n\n'],
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        responseFormat: { type: 'json_object' },
      },
      compaction: false,
    })
    expect(result.status, result.text).toBe(200)
    const [sent] = await upstreamRequests(tag)
    expect(sent!.body).toMatchObject({
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      stop: ['\n\n'],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      response_format: { type: 'json_object' },
    })
    // The default context (8192) less the request's own maxTokens.
    expect(result.body.context.budget).toBe(8192 - 64)
  })

  it('sends none of them when none are given', async () => {
    const tag = newTag()
    await turn(newSessionId(), { content: 'Hi', model: `echo#${tag}`, compaction: false })
    const [sent] = await upstreamRequests(tag)
    for (const field of [
      'tools',
      'tool_choice',
      'parallel_tool_calls',
      'temperature',
      'top_p',
      'stop',
      'seed',
      'response_format',
    ]) {
      expect(sent!.body, field).not.toHaveProperty(field)
    }
  })

  it('counts the tools’ JSON toward the prompt: tools too large for the context are a 413, nothing written', async () => {
    const id = newSessionId()
    const tools = Array.from({ length: 20 }, (_, i) => ({
      type: 'function',
      function: { name: `tool_${i}`, description: `${'a lengthy description of what this tool does '.repeat(180)}` },
    }))
    expectError(await turn(id, { content: 'Hi', tools, compaction: false }), 413, 'context_overflow')
    expectError(
      await turn(id, { content: 'Hi', tools: tools.slice(0, 1), compaction: false, model: 'fail-500' }),
      502,
      'upstream_error',
    )
  })

  it('refuses bad tools, choices and options with a 400 naming the field', async () => {
    const id = newSessionId()
    const bad: [Record<string, unknown>, string][] = [
      [{ tools: [] }, 'tools'],
      [{ tools: [{ type: 'function', function: { name: 'has space' } }] }, 'tools[0].function.name'],
      [{ tools: [weather, weather] }, 'tools[1].function.name'],
      [{ tools: [{ type: 'retrieval' }] }, 'tools[0].type'],
      [{ toolChoice: 'required' }, 'toolChoice'],
      [{ tools: [weather], toolChoice: { type: 'function', function: { name: 'other' } } }, 'toolChoice.function.name'],
      [{ toolChoice: 'sometimes' }, 'toolChoice'],
      [{ parallelToolCalls: 'yes' }, 'parallelToolCalls'],
      [{ options: { temperature: 3 } }, 'options.temperature'],
      [{ options: { topP: 0 } }, 'options.topP'],
      [{ options: { maxTokens: 0 } }, 'options.maxTokens'],
      [{ options: { stop: ['a', 'b', 'c', 'd', 'e'] } }, 'options.stop'],
      [{ options: { responseFormat: { type: 'xml' } } }, 'options.responseFormat'],
      [{ options: { best: 1 } }, 'options'],
    ]
    for (const [fields, path] of bad) {
      const result = await turn(id, { content: 'Hi', compaction: false, ...fields })
      expectError(result, 400, 'invalid_request')
      expect(result.body.error.message, JSON.stringify(fields)).toContain(path)
    }
  })
})

describe('a reply that calls tools', () => {
  const minted = /^call_[0-9a-f]{32}$/

  it('is stored as one assistant event and answered requires_action with its calls, ids minted for calls without one', async () => {
    const id = newSessionId()
    const result = await turn(id, {
      content: 'Weather in Paris and Rome?',
      model: `tools-c1,_#${newTag()}`,
      tools: [weather],
      compaction: false,
    })
    expect(result.status, result.text).toBe(200)
    expect(result.body.status).toBe('requires_action')
    const [first, second] = result.body.toolCalls
    expect(first).toEqual({ id: 'c1', name: 'get_weather', arguments: '{"n":0}' })
    expect(second.id).toMatch(minted)
    expect(result.body.reply.message).toEqual({ role: 'assistant', content: null, toolCalls: result.body.toolCalls })
    // The log holds the same ids as the response.
    const log = (await call('GET', `/v1/sessions/${id}/events`)).body.events
    expect(log.at(-1).message.toolCalls).toEqual(result.body.toolCalls)
  })

  it('is answered the same when the turn is retried by its id', async () => {
    const id = newSessionId()
    const body = { id: 'ask-1', content: 'Weather?', model: `tools-_#${newTag()}`, tools: [weather], compaction: false }
    const first = await turn(id, body)
    const again = await turn(id, body)
    expect(again.body.status).toBe('requires_action')
    expect(again.body.toolCalls).toEqual(first.body.toolCalls)
  })

  it('gets a fresh id for a call that repeats an id of the same reply', async () => {
    const result = await turn(newSessionId(), {
      content: 'Twice',
      model: `tools-dup,dup#${newTag()}`,
      tools: [weather],
      compaction: false,
    })
    const [first, second] = result.body.toolCalls
    expect(first.id).toBe('dup')
    expect(second.id).toMatch(minted)
  })

  it('streamed: the calls are put together from their deltas, and done carries them with their ids', async () => {
    const result = await turn(newSessionId(), {
      content: 'Weather?',
      model: `tools-_,c2#${newTag()}`,
      tools: [weather],
      stream: true,
      compaction: false,
    })
    const done = parseSSE(result.text).find((event) => event.event === 'done')!.data
    expect(done.status).toBe('requires_action')
    expect(done.toolCalls.map((c: { arguments: string }) => c.arguments)).toEqual(['{"n":0}', '{"n":1}'])
    expect(done.toolCalls[0].id).toMatch(minted)
    expect(done.toolCalls[1].id).toBe('c2')
    expect(done.reply.message.toolCalls).toEqual(done.toolCalls)
  })

  it('a reply without calls is completed, with no calls', async () => {
    const result = await turn(newSessionId(), { content: 'Hi', model: `echo#${newTag()}`, tools: [weather], compaction: false })
    expect(result.body).toMatchObject({ status: 'completed', toolCalls: [] })
  })
})
