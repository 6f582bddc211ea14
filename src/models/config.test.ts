import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { DEFAULTS, modelSettings } from './config'

const fakeAI = { run: async () => ({ response: 'hi' }) } as unknown as Ai

describe('modelSettings', () => {
  it('uses the OpenAI-compatible upstream when OPENAI_BASE_URL is set, even with an AI binding', () => {
    const settings = modelSettings({ ...env, AI: fakeAI })
    expect(settings.model?.provider).toBe('openai-compatible')
    expect(settings.chatModel).toBe('echo')
  })

  it('uses Workers AI when only the AI binding is present, with its default model', () => {
    const settings = modelSettings({
      ...env,
      OPENAI_BASE_URL: undefined,
      CHAT_MODEL: undefined,
      SUMMARY_MODEL: undefined,
      AI: fakeAI,
    })
    expect(settings.model?.provider).toBe('workers-ai')
    expect(settings.chatModel).toBe(DEFAULTS.workersAIModel)
    expect(settings.summaryModel).toBe(DEFAULTS.workersAIModel)
  })

  it('has no model when neither is configured, and documented defaults for the budgets', () => {
    const settings = modelSettings({ ...env, OPENAI_BASE_URL: undefined, AI: undefined })
    expect(settings.model).toBeNull()
    expect(settings).toMatchObject({ contextTokens: 8192, replyTokens: 1024, summaryTokens: 1024 })
  })

  it('reads the budgets, ignoring values that are not positive integers', () => {
    const settings = modelSettings({ ...env, CHAT_CONTEXT_TOKENS: '32000', CHAT_MAX_TOKENS: 'lots', SUMMARY_MAX_TOKENS: '-5' })
    expect(settings).toMatchObject({ contextTokens: 32000, replyTokens: 1024, summaryTokens: 1024 })
  })
})
