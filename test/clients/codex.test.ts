import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import type { serveWorker } from '../served/global-setup'
import { claude, cliMissing, codexUser as codexUserOf, removeFolders, serveForCli } from './cli'
import { blobOf, expectStoredOnce, PNG, PNG_BASE64, PNG_DATA_URL } from './media'

/**
 * Codex CLI itself (`codex exec`, from the test-only package in test/cli) pointed at the served
 * Worker through a config.toml provider with `wire_api = "responses"` and remote compaction, a
 * temporary HOME and CODEX_HOME, a user of its own per test. Its Worker keeps the newest turn and
 * summarizes the rest when a compaction is asked for (turns never compact on their own).
 */
const why = cliMissing
if (why) console.warn(`skipped: ${why}`)

let worker: Awaited<ReturnType<typeof serveWorker>>

beforeAll(async () => {
  if (why) return
  worker = await serveForCli({
    COMPACTION_POLICY: JSON.stringify({ trigger: { turnCount: 1000 }, strategy: { window: { lastTurns: 1 }, summarizer: {} } }),
  })
}, 180_000)

afterAll(async () => {
  await worker?.stop()
  removeFolders()
})

const codexUser = (headers: Record<string, string> = {}) => codexUserOf(worker.url, { headers })

/** A tool's output in short: its last line, or its parts (an image as `[image]`). */
const outputOf = (data: string | any[]) =>
  typeof data === 'string' ? data.trim().split('\n').at(-1) : data.map((part) => part.text ?? `[${part.type}]`).join(' ')

const said = (log: any[]) =>
  log
    .filter((event) => event.type === 'MESSAGE' && event.message.role !== 'system' && !event.synthetic)
    .map(({ message: m }) => {
      if (m.toolCalls) return `${m.role}:calls ${m.toolCalls.map((call: any) => call.name).join(',')}`
      if (m.toolResponses) return `${m.role}:${m.toolResponses.map((response: any) => outputOf(response.data)).join(',')}`
      return `${m.role}:${m.content.startsWith('<environment_context>') ? '<environment_context>' : m.content}`
    })

/** What the fake upstream was sent for a tag. */
const upstreamSent = async (tag: string): Promise<{ body: { messages: { role: string; content: string | null }[] } }[]> =>
  (await fetch(`${inject('upstreamUrl')}/__requests?tag=${encodeURIComponent(tag)}`)).json() as never

describe.skipIf(why)('Codex CLI (codex exec) against the Responses door', () => {
  it('a plain turn, then `exec resume`: Codex’s session in its session-id, each message stored once', async () => {
    const codex = await codexUser()
    const tag = `cx${Date.now().toString(36)}`
    expect(await codex.exec(['-m', `echo#${tag}`, 'Hello from Codex'])).toMatch(/Echo: Hello from Codex/)
    expect(await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'And again'])).toMatch(/Echo: And again/)
    const log = await codex.log()
    expect(said(log)).toEqual([
      'user:<environment_context>',
      'user:Hello from Codex',
      'assistant:Echo: Hello from Codex',
      'user:And again',
      'assistant:Echo: And again',
    ])
    // Its two developer messages are the system prompt, stored once.
    const systems = log.filter((event) => event.message?.role === 'system')
    expect(systems).toHaveLength(1)
    expect(systems[0].message.content).toMatch(/Codex/)
    const sent = await upstreamSent(tag)
    expect(sent.at(-1)!.body.messages.filter((m) => m.role === 'assistant')).toHaveLength(1)
  })

  it('a tool call Codex runs (its exec_command): the call, its output and the answer stored in order', async () => {
    const codex = await codexUser()
    const tag = `cxs${Date.now().toString(36)}`
    expect(await codex.exec(['-m', `shell#${tag}`, 'Please RUN:echo hi-from-codex'])).toMatch(/Ran: hi-from-codex/)
    expect(said(await codex.log())).toEqual([
      'user:<environment_context>',
      'user:Please RUN:echo hi-from-codex',
      'assistant:calls exec_command',
      'tool:hi-from-codex',
      'assistant:Ran: hi-from-codex',
    ])
    const [, second] = await upstreamSent(tag)
    expect(second!.body.messages.filter((m) => m.role === 'tool')).toHaveLength(1)
  })

  it('an image its view_image returns, resent by the next turn: stored once, the model given it on every request after', async () => {
    const codex = await codexUser()
    const tag = `cxv${Date.now().toString(36)}`
    const file = join(codex.work, 'shot.png')
    writeFileSync(file, PNG)
    // The model calls view_image; Codex answers with the image, a data URL input_image in the function_call_output.
    expect(await codex.exec(['-m', `viewer#${tag}`, `Please VIEW:${file}`])).toMatch(/Viewed: \[image\]/)
    expect(await codex.exec(['resume', '--last', '-m', `viewer#${tag}`, 'What does it show?'])).toMatch(
      /Echo: What does it show\?/,
    )
    const log = await codex.log()
    expect(said(log)).toEqual([
      'user:<environment_context>',
      `user:Please VIEW:${file}`,
      'assistant:calls view_image',
      'tool:[image]',
      'assistant:Viewed: [image]',
      'user:What does it show?',
      'assistant:Echo: What does it show?',
    ])
    // As Codex sent it: its bytes, and the detail it asks for.
    const result = log.find((event) => event.message?.role === 'tool')
    expect(result.message.toolResponses).toEqual([
      {
        id: 'view_1',
        name: 'view_image',
        data: [
          {
            type: 'image',
            mediaType: 'image/png',
            blob: await blobOf(PNG),
            bytes: PNG.byteLength,
            width: 40,
            height: 30,
            detail: 'high',
          },
        ],
      },
    ])
    const { sessions } = await codex.api('/sessions')
    await expectStoredOnce(sessions[0].id, [PNG], { apiBase: new URL('/v1', worker.url).href, token: codex.token })
    // Every request after the call gave the model the image, once, after the tool message.
    const sent = await upstreamSent(tag)
    expect(sent).toHaveLength(3)
    expect(JSON.stringify(sent[0]!.body.messages)).not.toContain(PNG_BASE64)
    for (const { body } of sent.slice(1)) {
      const messages = body.messages as any[]
      const at = messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === 'view_1')
      expect(messages[at + 1]).toEqual({
        role: 'user',
        content: [
          { type: 'text', text: '[images returned by tool call view_1]' },
          { type: 'image_url', image_url: { url: PNG_DATA_URL, detail: 'high' } },
        ],
      })
      expect(JSON.stringify(messages).split(PNG_BASE64)).toHaveLength(2)
    }
  })

  it('a compaction Codex asks for before its next turn: a pass with a summary, then the turn on the compacted view', async () => {
    const codex = await codexUser()
    const tag = `cxc${Date.now().toString(36)}`
    // The answer reports more tokens than Codex's limit: it compacts before the next turn.
    await codex.exec(['-m', `usage-50000#${tag}`, 'The code word is kiwi.'])
    expect(await codex.exec(['resume', '--last', '-m', `echo#${tag}`, 'What was the code word?'])).toMatch(
      /Echo: What was the code word\?/,
    )
    const log = await codex.log()
    expect(log.filter((event) => event.type === 'COMPACTION')).toHaveLength(1)
    expect(said(log).filter((line) => line === 'user:The code word is kiwi.')).toHaveLength(1)
    expect(said(log).slice(-2)).toEqual(['user:What was the code word?', 'assistant:Echo: What was the code word?'])
    // The model was shown the summary in place of what the pass covered.
    const view = await codex.view()
    expect(view.some((event) => event.synthetic)).toBe(true)
    const [last] = (await upstreamSent(tag)).slice(-1)
    expect(last!.body.messages.at(-1)!.content).toBe('What was the code word?')
  })

  it('a compaction in the middle of its tool loop: the output stored, then the model goes on from it', async () => {
    const codex = await codexUser()
    const tag = `cxm${Date.now().toString(36)}`
    // The tool call reports more tokens than the limit: Codex compacts between the output and the next call.
    expect(await codex.exec(['-m', `shell-50000#${tag}`, 'Please RUN:echo mid-turn'])).toMatch(/Ran: mid-turn/)
    const log = await codex.log()
    expect(said(log)).toEqual([
      'user:<environment_context>',
      'user:Please RUN:echo mid-turn',
      'assistant:calls exec_command',
      'tool:mid-turn',
      'assistant:Ran: mid-turn',
    ])
    expect(log.filter((event) => event.type === 'COMPACTION')).toHaveLength(1)
    const sent = await upstreamSent(tag)
    expect(sent.filter((request) => request.body.messages.at(-1)?.role === 'tool')).toHaveLength(1)
  })

  it('one session through every door: Claude Code starts it, Codex goes on with the same X-Session-Id, then a chat client', async () => {
    const session = `every-door-${Date.now().toString(36)}`
    const tag = `cxd${Date.now().toString(36)}`
    const codex = await codexUser({ 'X-Session-Id': session })
    const started = await claude(['Claude asks: what is kiwi?', '--model', `echo#${tag}`], {
      service: worker.url,
      token: codex.token,
      home: codex.home,
      cwd: codex.work,
      env: { ANTHROPIC_CUSTOM_HEADERS: `X-Session-Id: ${session}` },
    })
    expect(started.result, JSON.stringify(started)).toMatch(/^Echo: /)
    expect(await codex.exec(['-m', `echo#${tag}`, 'Codex asks: and mango?'])).toMatch(/Echo: Codex asks: and mango\?/)
    const chat = await fetch(new URL('/v1/chat/completions', worker.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${codex.token}`, 'Content-Type': 'application/json', 'X-Session-Id': session },
      body: JSON.stringify({ model: `echo#${tag}`, messages: [{ role: 'user', content: 'Chat asks: and fig?' }] }),
    })
    expect(((await chat.json()) as any).choices[0].message.content).toBe('Echo: Chat asks: and fig?')
    const lines = said(await codex.log()).filter((line) => line !== 'user:<environment_context>')
    expect(lines).toHaveLength(6)
    expect(lines[0]).toMatch(/^user:.*Claude asks: what is kiwi\?/s)
    expect(lines[1]).toMatch(/^assistant:Echo: /)
    expect(lines.slice(2)).toEqual([
      'user:Codex asks: and mango?',
      'assistant:Echo: Codex asks: and mango?',
      'user:Chat asks: and fig?',
      'assistant:Echo: Chat asks: and fig?',
    ])
    // The last model call was shown all three clients' questions, in order.
    const [last] = (await upstreamSent(tag)).slice(-1)
    const asked = last!.body.messages.flatMap((m) => /(\w+) asks:/.exec(m.role === 'user' ? (m.content ?? '') : '')?.[1] ?? [])
    expect(asked).toEqual(['Claude', 'Codex', 'Chat'])
  })
})
