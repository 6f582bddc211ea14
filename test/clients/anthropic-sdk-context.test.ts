import Anthropic from '@anthropic-ai/sdk'
import type {
  BetaContentBlock,
  BetaContextManagementConfig,
  BetaMessageParam,
} from '@anthropic-ai/sdk/resources/beta/messages/messages'
import { describe, expect, inject, it } from 'vitest'
import { logOf, newSessionId, newTag, shown, upstreamSent } from './helpers'

/**
 * Anthropic's context management through the service with the real SDK (`client.beta.messages`,
 * `betas`): the three edits, each applied by the service whatever the upstream, their answers
 * read by the SDK's own types, plain and streamed (its stream helper putting the message
 * together, `context_management` included), and a compaction block sent back as the SDK's docs
 * say: the response appended to the messages.
 */

const client = (sessionId: string) =>
  new Anthropic({
    baseURL: inject('apiBase').replace(/\/v1$/, ''),
    apiKey: inject('apiKey'),
    defaultHeaders: { 'X-Session-Id': sessionId },
    maxRetries: 0,
  })

const readFile: Anthropic.Beta.BetaTool = {
  name: 'read_file',
  description: 'Reads a file',
  input_schema: { type: 'object', properties: {} },
}
const fileText = (step: number) => Array.from({ length: 400 }, (_, i) => `w${(step * 7 + i) % 997}`).join(' ')
const BETAS: Anthropic.Beta.AnthropicBeta[] = ['context-management-2025-06-27', 'compact-2026-01-12']

/** What the fake Anthropic upstream was sent for a tag. */
const anthropicSent = async (tag: string): Promise<{ body: Record<string, any> }[]> =>
  (await fetch(`${inject('anthropicUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never

/** The content of a response as the next request's assistant message. */
const assistant = (content: BetaContentBlock[]): BetaMessageParam => ({ role: 'assistant', content: content as never })

describe('@anthropic-ai/sdk context management (beta) against the Messages door', () => {
  it('clear_tool_uses_20250919 in a tool loop: applied_edits read by the SDK, plain and streamed; nothing forwarded', async () => {
    const id = newSessionId('context')
    const tag = newTag()
    const context_management: BetaContextManagementConfig = {
      edits: [
        {
          type: 'clear_tool_uses_20250919',
          trigger: { type: 'tool_uses', value: 2 },
          keep: { type: 'tool_uses', value: 1 },
        },
      ],
    }
    const messages: BetaMessageParam[] = [{ role: 'user', content: 'Read every file and report.' }]
    const applied: unknown[] = []
    for (let step = 1; step <= 4; step++) {
      const request = { model: `loop-9#${tag}`, max_tokens: 200, betas: BETAS, tools: [readFile], messages, context_management }
      // Streamed every other step: the stream helper takes context_management from message_delta.
      const message =
        step % 2 === 0
          ? await client(id).beta.messages.stream(request).finalMessage()
          : await client(id).beta.messages.create(request)
      expect(message.stop_reason).toBe('tool_use')
      expect(message.context_management).toEqual({ applied_edits: expect.any(Array) })
      applied.push(...message.context_management!.applied_edits)
      const use = message.content.find((block) => block.type === 'tool_use')!
      messages.push(assistant(message.content), {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: use.id, content: fileText(step) }],
      })
    }
    // Past 2 calls in the prompt, each request clears what fell out of keep: with three, two results.
    expect(applied).toEqual([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 2, cleared_input_tokens: expect.any(Number) },
    ])
    // The SDK's count of the next request: the prompt after the clearing it would apply, and before.
    const counted = await client(id).beta.messages.countTokens({
      model: 'echo',
      betas: BETAS,
      tools: [readFile],
      messages,
      context_management,
    })
    const before = counted.context_management!.original_input_tokens
    expect(counted.input_tokens).toBeLessThan(before)
    const last = await client(id).beta.messages.create({
      model: `loop-9#${tag}`,
      max_tokens: 200,
      betas: BETAS,
      tools: [readFile],
      messages,
      context_management,
    })
    // With four, one more: what the count took off.
    expect(last.context_management!.applied_edits).toEqual([
      { type: 'clear_tool_uses_20250919', cleared_tool_uses: 1, cleared_input_tokens: before - counted.input_tokens },
    ])
    const sent = await upstreamSent(tag)
    const prompt = sent.at(-1)!.body.messages as { role: string; content: string }[]
    const results = prompt.filter((message) => message.role === 'tool').map((message) => message.content)
    expect(results.slice(0, 3).every((content) => content.startsWith('[tool result cleared: call step_'))).toBe(true)
    expect(results[3]).toBe(fileText(4))
    for (const { body } of sent) expect(Object.keys(body)).not.toContain('context_management')
    // The session holds every result whole.
    expect(shown(await logOf(id)).filter((line) => line.startsWith('tool:'))).toHaveLength(4)
  })

  it('clear_thinking_20251015 with an Anthropic upstream: the older turns’ thinking left out of what it is sent', async () => {
    const id = newSessionId('context')
    const tag = newTag()
    const messages: BetaMessageParam[] = []
    let answer: Anthropic.Beta.BetaMessage | undefined
    for (const question of ['one', 'two', 'three']) {
      messages.push({ role: 'user', content: question })
      answer = await client(id).beta.messages.create({
        model: `claude-think#${tag}`,
        max_tokens: 200,
        betas: BETAS,
        messages,
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] },
      })
      expect(answer.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think.' })
      messages.push(assistant(answer.content))
    }
    expect(answer!.context_management!.applied_edits).toEqual([
      { type: 'clear_thinking_20251015', cleared_thinking_turns: 1, cleared_input_tokens: expect.any(Number) },
    ])
    const sent = await anthropicSent(tag)
    const thinking = sent
      .at(-1)!
      .body.messages.filter((message: any) => message.role === 'assistant')
      .map((message: any) => message.content.filter((block: any) => block.type === 'thinking').length)
    expect(thinking).toEqual([0, 1])
    for (const { body } of sent) expect(Object.keys(body)).not.toContain('context_management')
  })

  it('compact_20260112: the compaction block first, sent back with the history; streamed, the SDK puts it together', async () => {
    const id = newSessionId('context')
    const tag = newTag()
    const messages: BetaMessageParam[] = []
    for (const question of ['One', 'Two', 'Three']) {
      messages.push({ role: 'user', content: question })
      const reply = await client(id).beta.messages.create({ model: `echo#${tag}`, max_tokens: 100, betas: BETAS, messages })
      messages.push(assistant(reply.content))
    }
    const compact: BetaContextManagementConfig = {
      edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 20 }, instructions: 'Keep the numbers.' }],
    }
    messages.push({ role: 'user', content: 'Four' })
    const compacted = await client(id).beta.messages.create({
      model: `echo#${tag}`,
      max_tokens: 100,
      betas: BETAS,
      messages,
      context_management: compact,
    })
    expect(compacted.content.map((block) => block.type)).toEqual(['compaction', 'text'])
    const block = compacted.content[0] as Anthropic.Beta.BetaCompactionBlock
    expect(block.content).toEqual(expect.any(String))
    expect(block.encrypted_content).toEqual(expect.any(String))
    expect(compacted.stop_reason).toBe('end_turn')
    // As the SDK's docs say: the response appended, the conversation goes on; streamed this time.
    messages.push(assistant(compacted.content), { role: 'user', content: 'Five' })
    let summary: string | null = null
    const stream = client(id)
      .beta.messages.stream({ model: `echo#${tag}`, max_tokens: 100, betas: BETAS, messages, context_management: compact })
      .on('compaction', (content) => {
        summary = content
      })
    const streamed = await stream.finalMessage()
    // The prompt had grown past the trigger again: compacted again, the block streamed first.
    expect(streamed.content.map((b) => b.type)).toEqual(['compaction', 'text'])
    expect(summary).toBe((streamed.content[0] as Anthropic.Beta.BetaCompactionBlock).content)
    expect(streamed.content[1]).toMatchObject({ type: 'text', text: 'Echo: Five' })
    expect(streamed.context_management).toEqual({ applied_edits: [] })
    // Only the newest block's message and what follows it, as Anthropic lets a client send.
    const short = await client(id).beta.messages.create({
      model: `echo#${tag}`,
      max_tokens: 100,
      betas: BETAS,
      messages: [assistant(streamed.content), { role: 'user', content: 'Six' }],
    })
    expect(short.content).toEqual([{ type: 'text', text: 'Echo: Six' }])
    // Every message stored once; beside them, the two passes' summaries (synthetic).
    const log = (await logOf(id)) as (Awaited<ReturnType<typeof logOf>>[number] & { synthetic?: boolean })[]
    const users = shown(log.filter((event) => !event.synthetic)).filter((line) => line.startsWith('user:'))
    expect(users).toEqual(['user:One', 'user:Two', 'user:Three', 'user:Four', 'user:Five', 'user:Six'])
    expect(log.filter((event) => event.synthetic && event.message.role === 'assistant')).toHaveLength(2)
  })

  it('compact_20260112 with pause_after_compaction: stop_reason compaction, then the conversation goes on', async () => {
    const id = newSessionId('context')
    const tag = newTag()
    const messages: BetaMessageParam[] = []
    for (const question of ['One', 'Two', 'Three']) {
      messages.push({ role: 'user', content: question })
      const reply = await client(id).beta.messages.create({ model: `echo#${tag}`, max_tokens: 100, betas: BETAS, messages })
      messages.push(assistant(reply.content))
    }
    messages.push({ role: 'user', content: 'Four' })
    const paused = await client(id)
      .beta.messages.stream({
        model: `echo#${tag}`,
        max_tokens: 100,
        betas: BETAS,
        messages,
        context_management: {
          edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 20 }, pause_after_compaction: true }],
        },
      })
      .finalMessage()
    expect(paused.stop_reason).toBe('compaction')
    expect(paused.content.map((block) => block.type)).toEqual(['compaction'])
    messages.push(assistant(paused.content))
    const resumed = await client(id).beta.messages.create({ model: `echo#${tag}`, max_tokens: 100, betas: BETAS, messages })
    expect(resumed.content).toEqual([{ type: 'text', text: 'Echo: Four' }])
  })

  it('an edit the service does not serve is the SDK’s BadRequestError naming it', async () => {
    const refused = client(newSessionId('context')).beta.messages.create({
      model: 'echo',
      max_tokens: 50,
      betas: BETAS,
      messages: [{ role: 'user', content: 'Hi' }],
      context_management: { edits: [{ type: 'clear_everything_20990101' } as never] },
    })
    await expect(refused).rejects.toBeInstanceOf(Anthropic.BadRequestError)
    await expect(refused).rejects.toMatchObject({
      status: 400,
      error: { error: { type: 'invalid_request_error', message: expect.stringContaining('clear_everything_20990101') } },
    })
  })
})
