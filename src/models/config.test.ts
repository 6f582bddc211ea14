import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, modelSettings } from './config'

/**
 * A test double of the Workers AI binding: the real one runs only on Cloudflare's network (it
 * needs a login), so offline tests stand in for it here and in workers-ai/index.test.ts, answering
 * in the platform's documented shapes. Everything else model-facing is faked at the wire.
 */
function fakeAI() {
  const calls: string[] = []
  const binding = {
    run: async (model: string) => {
      calls.push(model)
      return { response: 'from workers ai' }
    },
  } as unknown as Ai
  return { binding, calls }
}

const ask = { messages: [{ role: 'user' as const, content: 'Hello' }], maxTokens: 10 }

describe('modelSettings', () => {
  it('uses the OpenAI-compatible upstream when OPENAI_BASE_URL is set, even with an AI binding', async () => {
    const ai = fakeAI()
    const settings = modelSettings({ ...env, AI: ai.binding })
    expect(settings.chatModel).toBe('echo')
    const reply = await settings.model!.chat({ ...ask, model: settings.chatModel })
    expect(reply.content).toBe('Echo: Hello') // the fake upstream's answer
    expect(ai.calls).toEqual([])
  })

  it('uses Workers AI when only the AI binding is present, with its default model', async () => {
    const ai = fakeAI()
    const settings = modelSettings({
      ...env,
      OPENAI_BASE_URL: undefined,
      CHAT_MODEL: undefined,
      SUMMARY_MODEL: undefined,
      AI: ai.binding,
    })
    expect(settings.chatModel).toBe(DEFAULTS.workersAIModel)
    expect(settings.summaryModel).toBe(DEFAULTS.workersAIModel)
    const reply = await settings.model!.chat({ ...ask, model: settings.chatModel })
    expect(reply.content).toBe('from workers ai')
    expect(ai.calls).toEqual([DEFAULTS.workersAIModel])
  })

  it('sends models named claude… to Anthropic when ANTHROPIC_API_KEY is set, every other to the OpenAI-compatible upstream', async () => {
    const both = modelSettings({ ...env })
    expect((await both.model!.chat({ ...ask, model: 'claude-echo' })).model).toBe('claude-echo') // the fake Anthropic's answer
    expect((await both.model!.chat({ ...ask, model: 'echo' })).content).toBe('Echo: Hello')
    const only = modelSettings({ ...env, OPENAI_BASE_URL: undefined, CHAT_MODEL: undefined, SUMMARY_MODEL: undefined })
    expect(only.chatModel).toBe(DEFAULTS.anthropicModel)
    await expect(only.model!.chat({ ...ask, model: 'gpt-4o' })).rejects.toMatchObject({ code: 'not_configured' })
  })

  it('has no model when neither is configured, and documented defaults for the budgets', () => {
    const settings = modelSettings({ ...env, OPENAI_BASE_URL: undefined, AI: undefined, ANTHROPIC_API_KEY: undefined })
    expect(settings.model).toBeNull()
    expect(settings).toMatchObject({ contextTokens: 8192, replyTokens: 1024, summaryTokens: 1024 })
  })

  it('reads the budgets, ignoring values that are not positive integers', () => {
    const settings = modelSettings({ ...env, CHAT_CONTEXT_TOKENS: '32000', CHAT_MAX_TOKENS: 'lots', SUMMARY_MAX_TOKENS: '-5' })
    expect(settings).toMatchObject({ contextTokens: 32000, replyTokens: 1024, summaryTokens: 1024 })
  })
})

describe('MODEL_CONTEXT_TOKENS', () => {
  it('gives a model its own context window; other models keep CHAT_CONTEXT_TOKENS', () => {
    const settings = modelSettings({ ...env, CHAT_CONTEXT_TOKENS: '8192', MODEL_CONTEXT_TOKENS: '{"small":2048,"large":128000}' })
    expect(settings.problem).toBeNull()
    expect(settings.contextTokensOf('small')).toBe(2048)
    expect(settings.contextTokensOf('large')).toBe(128_000)
    expect(settings.contextTokensOf('other')).toBe(8192)
  })

  it('anything but a JSON object of positive integers is a problem naming the variable', () => {
    for (const bad of ['not json', '[1,2]', '"x"', '{"m":0}', '{"m":1.5}', '{"m":"4096"}', '{"m":-1}', 'null']) {
      const settings = modelSettings({ ...env, MODEL_CONTEXT_TOKENS: bad })
      expect(settings.problem, bad).toContain('MODEL_CONTEXT_TOKENS')
    }
  })
})

describe('IMAGES_TO_MODEL', () => {
  it('sends the bytes by default and placeholders when asked; anything else is a problem naming the variable', () => {
    expect(modelSettings({ ...env, IMAGES_TO_MODEL: undefined })).toMatchObject({ imagesToModel: 'bytes', problem: null })
    expect(modelSettings({ ...env, IMAGES_TO_MODEL: 'bytes' })).toMatchObject({ imagesToModel: 'bytes', problem: null })
    expect(modelSettings({ ...env, IMAGES_TO_MODEL: ' placeholder ' })).toMatchObject({
      imagesToModel: 'placeholder',
      problem: null,
    })
    expect(modelSettings({ ...env, IMAGES_TO_MODEL: 'text' }).problem).toBe(
      'IMAGES_TO_MODEL: "text" is neither bytes nor placeholder',
    )
  })
})
