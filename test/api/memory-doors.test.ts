/** The memory tool through the doors: Anthropic's memory_20250818 on Messages, `X-Memory: on` on chat completions and Responses. */
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { MEMORY_INSTRUCTION } from '../../src/memory'
import { call, newSessionId, newTag, upstreamRequests, wholeLog } from '../helpers'
import { a, send, u } from '../support/messages-door'

let users = 0
const newUser = () => `memory-door-${Date.now().toString(36)}-${++users}`

const script = (...rounds: unknown[]) => `Please remember. MEMORY:${JSON.stringify(rounds)}`
const create = (path: string, file_text: string) => ({ command: 'create', path, file_text })
const view = (path: string) => ({ command: 'view', path })
const MEMORY_TOOL = { type: 'memory_20250818', name: 'memory' }

async function anthropicRequests(tag: string): Promise<{ body: any; headers: Record<string, string> }[]> {
  return (await fetch(`${env.ANTHROPIC_BASE_URL}/__requests?tag=${tag}`)).json()
}

/** A request as alice's SDK sends it, as `as`. */
const chat = (as: string, session: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call('POST', '/v1/chat/completions', { user: as, body, headers: { 'X-Session-Id': session, ...headers } })

describe('the Messages door with Anthropic’s memory tool', () => {
  it('runs memory_20250818 itself (never forwarded), answers only the reply, and matches the client’s history next time', async () => {
    const as = newUser()
    const session = newSessionId('memdoor')
    const tag = newTag()
    const model = `claude-memory#${tag}`
    const first = script({ text: 'Let me look at my memory first.', calls: [view('/memories')] }, [
      create('/memories/user.md', 'name: Ada'),
    ])
    const sent = await call('POST', '/v1/messages', {
      user: as,
      body: { model, max_tokens: 256, tools: [MEMORY_TOOL], messages: [u(first)] },
      headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': session, 'anthropic-beta': 'context-management-2025-06-27' },
    })
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body.stop_reason).toBe('end_turn')
    expect(sent.body.content).toEqual([
      { type: 'text', text: expect.stringContaining('File created successfully at: /memories/user.md') },
    ])
    // The upstream was offered a plain tool named memory (no memory_20250818), the instruction in its system prompt.
    const upstream = await anthropicRequests(tag)
    expect(upstream).toHaveLength(3)
    for (const { body } of upstream.slice(0, 2)) {
      expect(body.tools).toEqual([expect.objectContaining({ name: 'memory', input_schema: expect.any(Object) })])
      expect(body.tools[0].type).toBeUndefined()
    }
    expect(JSON.stringify(upstream[0]!.body.system)).toContain('ALWAYS VIEW YOUR MEMORY DIRECTORY')
    expect((await call('GET', '/v1/memories/user.md', { user: as })).body.content).toBe('name: Ada')
    // The round's text is stored with its call, marked: the client was handed only the reply.
    const log = await wholeLog(session, as)
    const round = log.find((event) => event.message?.content === 'Let me look at my memory first.')
    expect(round.metadata).toMatchObject({ serviceRound: true })
    // The client resends its history with the reply and goes on: nothing diverged, nothing rewound.
    const next = await call('POST', '/v1/messages', {
      user: as,
      body: {
        model,
        max_tokens: 256,
        tools: [MEMORY_TOOL],
        messages: [u(first), a(sent.body.content), u(script([view('/memories/user.md')]))],
      },
      headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': session },
    })
    expect(next.status, next.text).toBe(200)
    expect(next.headers.get('X-Rewound')).toBeNull()
    expect(next.body.content[0].text).toContain('name: Ada')
    expect((await wholeLog(session, as)).filter((event) => event.type === 'REWIND')).toEqual([])
  })

  it('streams the reply without a tool_use block for the memory calls', async () => {
    const as = newUser()
    const sent = await call('POST', '/v1/messages', {
      user: as,
      body: {
        model: 'claude-memory',
        max_tokens: 256,
        stream: true,
        tools: [MEMORY_TOOL],
        messages: [u(script([create('/memories/s.md', 'streamed')]))],
      },
      headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': newSessionId('memdoor') },
    })
    expect(sent.status).toBe(200)
    expect(sent.text).not.toContain('tool_use')
    expect(sent.text).toContain('"stop_reason":"end_turn"')
    expect((await call('GET', '/v1/memories/s.md', { user: as })).body.content).toBe('streamed')
  })

  it('counts the memory tool’s definition and instruction in count_tokens, as a turn’s fit check does', async () => {
    const count = async (tools: unknown[]) =>
      (
        await call('POST', '/v1/messages/count_tokens', {
          user: newUser(),
          body: { model: 'claude-echo', tools, messages: [u('hi')] },
          headers: { 'anthropic-version': '2023-06-01', 'X-Session-Id': newSessionId('memcount') },
        })
      ).body.input_tokens as number
    const [without, offered] = [await count([]), await count([MEMORY_TOOL])]
    expect(offered - without).toBeGreaterThan(300)
  })

  it('refuses a memory tool named otherwise, and a client tool named memory beside it', async () => {
    const renamed = await send(newSessionId('memdoor'), {
      model: 'claude-echo',
      tools: [{ ...MEMORY_TOOL, name: 'notes' }],
      messages: [u('hi')],
    })
    expect(renamed.status).toBe(400)
    expect(renamed.body.error.message).toContain('tools[0].name')
    const twice = await send(newSessionId('memdoor'), {
      model: 'claude-echo',
      tools: [MEMORY_TOOL, { name: 'memory', input_schema: { type: 'object' } }],
      messages: [u('hi')],
    })
    expect(twice.status).toBe(400)
    expect(twice.body.error.message).toContain('tools[1].name')
  })
})

describe('X-Memory: on', () => {
  it('offers the chat-completions door’s model the memory tool and hands the client only the reply', async () => {
    const as = newUser()
    const session = newSessionId('memdoor')
    const tag = newTag()
    const messages = [
      { role: 'user', content: script({ text: 'Checking.', calls: [view('/memories')] }, [create('/memories/c.md', 'chat')]) },
    ]
    const answer = await chat(as, session, { model: `memory#${tag}`, messages }, { 'X-Memory': 'on' })
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant' } })
    expect(answer.body.choices[0].message.tool_calls).toBeUndefined()
    expect(answer.body.choices[0].message.content).toContain('File created successfully at: /memories/c.md')
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).tools.map((tool: any) => tool.function.name)).toEqual(['memory'])
    expect((first!.body as any).messages[0]).toEqual({ role: 'system', content: MEMORY_INSTRUCTION })
    // The whole history again, with one more message: matched, nothing rewound.
    const again = await chat(
      as,
      session,
      { model: 'echo', messages: [...messages, answer.body.choices[0].message, { role: 'user', content: 'thanks' }] },
      { 'X-Memory': 'on' },
    )
    expect(again.status, again.text).toBe(200)
    expect(again.headers.get('X-Rewound')).toBeNull()
    expect(again.body.choices[0].message.content).toBe('Echo: thanks')
  })

  it('is off unless asked: without the header the model is offered no memory tool', async () => {
    const tag = newTag()
    await chat(newUser(), newSessionId('memdoor'), { model: `memory#${tag}`, messages: [{ role: 'user', content: 'hi' }] })
    const [first] = await upstreamRequests(tag)
    expect((first!.body as any).tools).toBeUndefined()
  })

  it('offers the Responses door’s model the memory tool; no function_call item for its calls', async () => {
    const as = newUser()
    const tag = newTag()
    const response = await call('POST', '/v1/responses', {
      user: as,
      body: { model: `memory#${tag}`, input: script([create('/memories/r.md', 'responses')]) },
      headers: { 'X-Session-Id': newSessionId('memdoor'), 'X-Memory': 'on' },
    })
    expect(response.status, response.text).toBe(200)
    expect(response.body.output.map((item: any) => item.type)).toEqual(['message'])
    expect(response.body.output[0].content[0].text).toContain('File created successfully at: /memories/r.md')
    expect((await call('GET', '/v1/memories/r.md', { user: as })).body.content).toBe('responses')
  })
})
