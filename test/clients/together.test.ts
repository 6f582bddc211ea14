import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { claude, cliMissing, codexUser, folder, removeFolders, serveForCli, tokenOf } from './cli'
import { servedApi, text } from './together'

/**
 * Every client together, one scripted run on one served Worker: the `openai` package (chat
 * completions), the Anthropic SDK (Messages), the AI SDK's OpenAI provider (Responses) and its
 * Anthropic provider (Messages), Claude Code and Codex each hold a conversation of several turns
 * with a tool the client runs, a compaction along the way and an edit. Each session's whole log
 * is then replayed by the log checker (nothing left the view but through a boundary, the view
 * served is the one replayed) and held against what the client itself believes it said.
 *
 * The SDK clients edit as chat apps do: they resend their history with the last question changed.
 * The CLIs cannot edit in print mode: their user edits through the API (a turn with `rewind`),
 * then the CLI goes on with its own copy — which wins, the edit kept as a branch. Compactions are
 * asked for through the API, except Codex's, which compacts its own copy (remote compaction).
 * Round four's clients (images, MCP, memory, a loop that clears) are together-round4.test.ts's.
 */
const why = cliMissing
if (why) console.warn(`skipped: ${why}`)

let worker: Awaited<ReturnType<typeof serveWorker>>
/** Its API: the script's compactions and edits, and each session checked against its log. */
let service: ReturnType<typeof servedApi>

beforeAll(async () => {
  if (why) return
  // No pass on its own: each conversation's compaction is the script's.
  worker = await serveForCli({
    COMPACTION_POLICY: JSON.stringify({ trigger: { turnCount: 1000 }, strategy: { window: { lastTurns: 1 }, summarizer: {} } }),
  })
  service = servedApi(worker.url)
}, 180_000)

afterAll(async () => {
  await worker?.stop()
  removeFolders()
})

const weatherSchema = { type: 'object', properties: { city: { type: 'string' } } } as const

describe.skipIf(why)('every client together: tools, a compaction and an edit, checked against the log', () => {
  it('the openai package, chat completions', async () => {
    const token = await tokenOf(`together-openai-${Date.now().toString(36)}`)
    const id = randomUUID()
    const tag = `tgo${Date.now().toString(36)}`
    const openai = new OpenAI({
      baseURL: new URL('/v1', worker.url).href,
      apiKey: token,
      defaultHeaders: { 'X-Session-Id': id },
      maxRetries: 0,
    })
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weatherSchema } },
    ]
    const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }]
    const ask = async (content: string | null, model = 'echo') => {
      if (content !== null) messages.push({ role: 'user', content })
      const { data, response } = await openai.chat.completions.create({ model, messages, tools }).withResponse()
      messages.push(data.choices[0]!.message as ChatCompletionMessageParam)
      return { data, rewound: response.headers.get('x-rewound') }
    }
    await ask('Plan a trip to Rome')
    const called = await ask('What is the weather there?', `agent-w1#${tag}`)
    expect(called.data.choices[0]!.finish_reason).toBe('tool_calls')
    for (const call of called.data.choices[0]!.message.tool_calls!)
      messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny' })
    expect((await ask(null, `agent-w1#${tag}`)).data.choices[0]!.message.content).toMatch(/^Results: .*sunny/)
    const summary = await service.compact(token, id)
    await ask('Book the hotel')
    // The edit: the last question changed, its answer dropped, sent again. The message it goes on
    // from came before the pass: the view as of it has no summary, so the summary leaves too.
    messages.splice(-2, 2)
    const edited = await ask('Book the cheaper hotel')
    expect(edited.rewound).toBe(String(summary + 2))
    expect(edited.data.choices[0]!.message.content).toBe('Echo: Book the cheaper hotel')
    await service.expectSession(token, id, {
      rewinds: ['divergence'],
      last: ['user:Book the cheaper hotel', 'assistant:Echo: Book the cheaper hotel'],
      abandoned: 'Book the hotel',
      asked: messages.filter((m) => m.role === 'user').map((m) => m.content as string),
    })
  })

  it('the Anthropic SDK, Messages', async () => {
    const token = await tokenOf(`together-anthropic-${Date.now().toString(36)}`)
    const id = randomUUID()
    const tag = `tga${Date.now().toString(36)}`
    const client = new Anthropic({
      baseURL: worker.url.toString().replace(/\/$/, ''),
      apiKey: token,
      defaultHeaders: { 'X-Session-Id': id },
      maxRetries: 0,
    })
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'The weather in a city', input_schema: weatherSchema }]
    const messages: Anthropic.MessageParam[] = []
    const ask = async (content: Anthropic.MessageParam['content'] | null, model = 'echo') => {
      if (content !== null) messages.push({ role: 'user', content })
      const { data, response } = await client.messages
        .create({ model, max_tokens: 256, system: 'Be brief.', messages, tools })
        .withResponse()
      messages.push({ role: 'assistant', content: data.content })
      return { data, rewound: response.headers.get('x-rewound') }
    }
    await ask('Plan a trip to Lisbon')
    const called = await ask('What is the weather there?', `agent-w1#${tag}`)
    expect(called.data.stop_reason).toBe('tool_use')
    const uses = called.data.content.filter((block) => block.type === 'tool_use')
    const results = await ask(
      uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'sunny' })),
      `agent-w1#${tag}`,
    )
    expect(text(results.data.content)).toMatch(/^Results: .*sunny/)
    const summary = await service.compact(token, id)
    await ask('Book the hotel')
    messages.splice(-2, 2)
    const edited = await ask('Book the cheaper hotel')
    expect(edited.rewound).toBe(String(summary + 2))
    expect(text(edited.data.content)).toBe('Echo: Book the cheaper hotel')
    await service.expectSession(token, id, {
      rewinds: ['divergence'],
      last: ['user:Book the cheaper hotel', 'assistant:Echo: Book the cheaper hotel'],
      abandoned: 'Book the hotel',
      asked: messages.flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : [])),
    })
  })

  for (const provider of ['openai', 'anthropic'] as const) {
    it(`the AI SDK’s ${provider} provider (${provider === 'openai' ? 'Responses' : 'Messages'})`, async () => {
      const token = await tokenOf(`together-ai-${provider}-${Date.now().toString(36)}`)
      const id = randomUUID()
      const tag = `tgai${provider}${Date.now().toString(36)}`
      const settings = { baseURL: new URL('/v1', worker.url).href, apiKey: token, headers: { 'X-Session-Id': id } }
      const model = provider === 'openai' ? createOpenAI(settings) : createAnthropic(settings)
      const tools = {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: jsonSchema<{ city?: string }>(weatherSchema),
          execute: async () => 'sunny',
        }),
      }
      const messages: ModelMessage[] = []
      const ask = async (content: string, name = 'echo') => {
        messages.push({ role: 'user', content })
        const result = await generateText({
          model: model(name),
          system: 'Be brief.',
          messages,
          tools,
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        })
        // Every step's messages (the tool call, its result, the answer): `response` is the last step's.
        messages.push(...result.responseMessages)
        return result
      }
      await ask('Plan a trip to Oslo')
      // The SDK runs the tool and sends its result back: two model calls, one answer.
      expect((await ask('What is the weather there?', `agent-w1#${tag}`)).text).toMatch(/^Results: .*sunny/)
      await service.compact(token, id)
      await ask('Book the hotel')
      messages.splice(-2, 2)
      expect((await ask('Book the cheaper hotel')).text).toBe('Echo: Book the cheaper hotel')
      await service.expectSession(token, id, {
        rewinds: ['divergence'],
        last: ['user:Book the cheaper hotel', 'assistant:Echo: Book the cheaper hotel'],
        abandoned: 'Book the hotel',
        asked: messages.flatMap((m) => (m.role === 'user' && typeof m.content === 'string' ? [m.content] : [])),
      })
    })
  }

  it('Claude Code (claude -p)', async () => {
    const token = await tokenOf(`together-claude-${Date.now().toString(36)}`)
    const sessionId = randomUUID()
    const tag = `tgcc${Date.now().toString(36)}`
    const [home, work] = [folder('together-claude-home-'), folder('together-claude-work-')]
    const run = async (args: string[]) => {
      const result = await claude(args, { service: worker.url, token, home, cwd: work })
      expect(result.is_error, JSON.stringify(result)).toBe(false)
      return result.result
    }
    writeFileSync(join(work, 'plan.txt'), 'the hotel is the Grand\n')
    expect(await run(['--session-id', sessionId, '--model', `echo#${tag}`, 'Plan a trip to Rome'])).toMatch(/^Echo: /)
    // Claude Code runs its Read tool for the model, then the model answers from its result.
    expect(
      await run([
        `Please READ:${join(work, 'plan.txt')}`,
        '--resume',
        sessionId,
        '--model',
        `reader#${tag}`,
        '--allowedTools',
        'Read',
      ]),
    ).toMatch(/^Read: .*the Grand/s)
    await service.compact(token, sessionId)
    expect(await run(['--resume', sessionId, '--model', `echo#${tag}`, 'Book the hotel'])).toMatch(/Book the hotel/)
    await service.editThroughApi(token, sessionId, 'Book the cheaper hotel')
    // Claude Code goes on with its own copy, which never saw the edit: its copy wins, the edit stays a branch.
    expect(await run(['--resume', sessionId, '--model', `echo#${tag}`, 'And a car'])).toMatch(/And a car/)
    const log = await service.expectSession(token, sessionId, {
      rewinds: ['edit', 'divergence'],
      last: [expect.stringMatching(/^user:.*And a car/s), expect.stringMatching(/^assistant:Echo: .*And a car/s)] as never,
      abandoned: 'Book the cheaper hotel',
    })
    expect(log.some((e) => e.message?.toolCalls?.[0]?.name === 'Read')).toBe(true)
  })

  it('Codex (codex exec), which compacts its own copy', async () => {
    const codex = await codexUser(worker.url)
    const tag = `tgcx${Date.now().toString(36)}`
    expect(await codex.exec(['-m', `echo#${tag}`, 'Plan a trip to Rome'])).toMatch(/Echo: Plan a trip to Rome/)
    // Codex runs exec_command for the model; the answer reports more tokens than Codex's limit.
    expect(await codex.exec(['resume', '--last', '-m', `shell-50000#${tag}`, 'Please RUN:echo the-Grand'])).toMatch(
      /Ran: the-Grand/,
    )
    // So Codex compacts its copy before the next turn (a compaction item the service makes).
    expect(await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'Book the hotel'])).toMatch(/Echo: Book the hotel/)
    const { sessions } = await codex.api('/sessions')
    const sessionId = sessions[0].id
    await service.editThroughApi(codex.token, sessionId, 'Book the cheaper hotel')
    expect(await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'And a car'])).toMatch(/Echo: And a car/)
    const log = await service.expectSession(codex.token, sessionId, {
      rewinds: ['edit', 'divergence'],
      last: ['user:And a car', 'assistant:Echo: And a car'],
      abandoned: 'Book the cheaper hotel',
    })
    expect(log.some((e) => e.message?.toolCalls?.[0]?.name === 'exec_command')).toBe(true)
  })
})
