import { describe, expect, it } from 'vitest'
import { expectError, newSessionId, newTag, turn, upstreamRequests } from '../helpers'

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
