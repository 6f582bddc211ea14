/**
 * The memory tool through the real clients: the Anthropic SDK offering Anthropic's memory tool
 * across two sessions, the results held against the SDK's own handler on a disk, and the AI SDK's
 * Anthropic provider offering it. The served Worker's model is the fake upstream's `memory` mode.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAnthropic } from '@ai-sdk/anthropic'
import Anthropic from '@anthropic-ai/sdk'
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node'
import { generateText, stepCountIs } from 'ai'
import { sign } from 'hono/jwt'
import { describe, expect, inject, it } from 'vitest'
import { newSessionId, newTag, upstreamSent } from './helpers'
import { randomCommands } from './memory-commands'

let users = 0
/** A user of its own (a memory store is per user), and a token for it. */
async function newUser(): Promise<{ id: string; token: string }> {
  const id = `memory-client-${Date.now().toString(36)}-${++users}`
  return { id, token: await sign({ sub: id, exp: Math.floor(Date.now() / 1000) + 3600 }, inject('jwtSecret'), 'HS256') }
}

/** The SDK pointed at the service as `token`, the session in a header. */
const client = (token: string, sessionId: string) =>
  new Anthropic({
    baseURL: inject('apiBase').replace(/\/v1$/, ''),
    apiKey: token,
    defaultHeaders: { 'X-Session-Id': sessionId },
    maxRetries: 0,
  })

const MEMORY: Anthropic.Beta.BetaMemoryTool20250818 = { type: 'memory_20250818', name: 'memory' }
/** A user message the fake model runs as a script of memory commands, one list a round. */
const script = (...rounds: unknown[]) => `MEMORY:${JSON.stringify(rounds)}`

/** A message with the memory tool offered, as an app using the SDK sends it. */
async function remember(token: string, sessionId: string, content: string, model = 'memory') {
  return client(token, sessionId).beta.messages.create({
    model,
    max_tokens: 1024,
    betas: ['context-management-2025-06-27'],
    tools: [MEMORY],
    messages: [{ role: 'user', content }],
  })
}

const textOf = (message: Anthropic.Beta.BetaMessage) =>
  message.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('')

/** The memory results a session's log holds, in order. */
async function memoryResults(token: string, sessionId: string): Promise<string[]> {
  const response = await fetch(`${inject('apiBase')}/sessions/${sessionId}/events?limit=1000`, {
    headers: { Authorization: `Bearer ${token}` },
  })
  const { events } = (await response.json()) as { events: { message?: { toolResponses?: { name: string; data: string }[] } }[] }
  return events.flatMap((event) => (event.message?.toolResponses ?? []).filter((r) => r.name === 'memory').map((r) => r.data))
}

describe('the Anthropic SDK with the memory tool', () => {
  it('remembers across sessions: the second session’s model reads what the first one wrote', async () => {
    const { token } = await newUser()
    const tag = newTag()
    const first = await remember(
      token,
      newSessionId('memory'),
      script(
        [{ command: 'view', path: '/memories' }],
        [{ command: 'create', path: '/memories/user.md', file_text: 'Ada takes tea, no sugar.\n' }],
      ),
      `memory#${tag}`,
    )
    expect(first.stop_reason).toBe('end_turn')
    expect(first.content.map((block) => block.type)).toEqual(['text'])
    expect(textOf(first)).toContain('File created successfully at: /memories/user.md')
    // The model was offered the tool as a function named memory, told to look at its memory first.
    const [offered] = await upstreamSent(tag)
    expect(JSON.stringify(offered)).toContain('ALWAYS VIEW YOUR MEMORY DIRECTORY')
    const second = await remember(
      token,
      newSessionId('memory'),
      script([{ command: 'view', path: '/memories' }], [{ command: 'view', path: '/memories/user.md' }]),
    )
    expect(textOf(second)).toContain(
      "Here's the content of /memories/user.md with line numbers:\n     1\tAda takes tea, no sugar.",
    )
    expect(textOf(second)).toContain('25B\t/memories/user.md')
  })

  it('answers each command as the SDK’s own handler does on a disk, errors included', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const commands = randomCommands(seed, 30)
      const base = mkdtempSync(join(tmpdir(), 'memory-handler-'))
      try {
        const handler = await BetaLocalFilesystemMemoryTool.init(base)
        const expected: string[] = []
        for (const command of commands) {
          try {
            expected.push(String(await handler[command.command](command as never)))
          } catch (error) {
            // The handler names its disk where the service names the memory path.
            expected.push(`Error: ${(error as Error).message.replaceAll(realpathSync(base), '').replaceAll(base, '')}`)
          }
        }
        const { token } = await newUser()
        const session = newSessionId('memory-diff')
        await remember(token, session, script(commands))
        expect(await memoryResults(token, session), `seed ${seed}: ${JSON.stringify(commands)}`).toEqual(expected)
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    }
  })
})

describe('the AI SDK’s Anthropic provider with the memory tool', () => {
  it('sends memory_20250818, which the service runs: the SDK’s execute is never called', async () => {
    const { token } = await newUser()
    const anthropic = createAnthropic({
      baseURL: inject('apiBase'),
      apiKey: token,
      headers: { 'X-Session-Id': newSessionId('memory-ai') },
    })
    let executed = 0
    const result = await generateText({
      model: anthropic('memory'),
      tools: {
        memory: anthropic.tools.memory_20250818({
          execute: async () => {
            executed++
            return 'the app’s own store'
          },
        }),
      },
      stopWhen: stepCountIs(3),
      prompt: script([{ command: 'create', path: '/memories/ai.md', file_text: 'from the AI SDK' }]),
      maxRetries: 0,
    })
    expect(executed).toBe(0)
    expect(result.finishReason).toBe('stop')
    expect(result.text).toContain('File created successfully at: /memories/ai.md')
    const file = await fetch(`${inject('apiBase')}/memories/ai.md`, { headers: { Authorization: `Bearer ${token}` } })
    expect(await file.json()).toMatchObject({ content: 'from the AI SDK', version: 1 })
  })
})
